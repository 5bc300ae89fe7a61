import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ToolContext } from "./define-tool";
import { useToolSessions } from "@/server/test/tool-session";
import { webSearchTool } from "./web-search";

const tools = useToolSessions();
/** A tool context whose project's network policy is open, unless a test says otherwise. */
const session = (overrides: Partial<ToolContext> = {}) =>
  tools({ sandbox: { mode: "none", network: { policy: "open", allowHosts: [] }, limits: null }, ...overrides });
let server: Server;
let base = "";
const seen: { url: string; headers: IncomingMessage["headers"]; body: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      seen.push({ url: req.url ?? "", headers: req.headers, body });
      res.setHeader("content-type", "application/json");
      const hit = {
        title: "Tandem",
        url: "https://tandem.dev",
        content: "A browser IDE",
        description: "A browser IDE",
      };
      if (req.url?.startsWith("/searx/search")) res.end(JSON.stringify({ results: [hit, hit, hit, hit, hit, hit] }));
      else if (req.url?.startsWith("/brave")) res.end(JSON.stringify({ web: { results: [hit] } }));
      else if (req.url?.startsWith("/tavily")) res.end(JSON.stringify({ results: [hit] }));
      else res.writeHead(500).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => server.close());

describe("web_search", () => {
  it("queries SearXNG and returns at most `limit` results with title, URL and snippet", async () => {
    const s = await session({ webSearch: { kind: "searxng", url: `${base}/searx` } });
    const run = await s.run(webSearchTool, { query: "browser ide" });
    expect(run.llm).toBe(
      Array.from({ length: 5 }, (_, i) => `${i + 1}. Tandem\n   https://tandem.dev\n   A browser IDE`).join("\n"),
    );
    expect(seen.at(-1)!.url).toBe("/searx/search?q=browser+ide&format=json");
    expect((await s.run(webSearchTool, { query: "x", limit: 2 })).meta?.results).toBe(2);
  });

  it("speaks the Brave and Tavily APIs with their keys", async () => {
    const brave = await session({ webSearch: { kind: "brave", apiKey: "b-key", url: `${base}/brave` } });
    expect((await brave.run(webSearchTool, { query: "q" })).llm).toContain("https://tandem.dev");
    expect(seen.at(-1)!.headers["x-subscription-token"]).toBe("b-key");
    const tavily = await session({ webSearch: { kind: "tavily", apiKey: "t-key", url: `${base}/tavily` } });
    expect((await tavily.run(webSearchTool, { query: "q", limit: 3 })).llm).toContain("A browser IDE");
    expect(seen.at(-1)!.headers.authorization).toBe("Bearer t-key");
    expect(JSON.parse(seen.at(-1)!.body)).toEqual({ query: "q", max_results: 3 });
  });

  it("reports a failing or missing backend as UNAVAILABLE", async () => {
    const broken = await session({ webSearch: { kind: "searxng", url: `${base}/down` } });
    expect((await broken.run(webSearchTool, { query: "q" })).error?.code).toBe("UNAVAILABLE");
    const none = await session();
    expect((await none.run(webSearchTool, { query: "q" })).error?.code).toBe("UNAVAILABLE");
  });
});
