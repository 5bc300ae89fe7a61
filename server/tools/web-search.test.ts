import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ToolContext } from "./define-tool";
import { useToolSessions } from "@/server/test/tool-session";
import { webSearchTool } from "./web-search";

// DuckDuckGo's HTML results page as it is shaped (a stand-in served on loopback: the real service
// is not reachable from the tests): an ad first, then organic results behind its redirect links.
const DUCKDUCKGO_PAGE = `<!DOCTYPE html><html><body><div id="links" class="results">
<div class="result results_links results_links_deep result--ad"><div class="links_main links_deep result__body">
<h2 class="result__title"><a rel="nofollow" class="result__a" href="https://duckduckgo.com/y.js?ad_domain=ads.example">Buy IDEs</a></h2>
<a class="result__snippet" href="https://duckduckgo.com/y.js?ad">Sponsored</a></div></div>
<div class="result results_links results_links_deep web-result"><div class="links_main links_deep result__body">
<h2 class="result__title"><a rel="nofollow" class="result__a" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Ftandem.dev%2Fdocs%3Fa%3D1&amp;rut=abc">Tandem <b>docs</b></a></h2>
<div class="result__extras"><a class="result__url" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Ftandem.dev">tandem.dev</a></div>
<a class="result__snippet" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Ftandem.dev">A <b>browser</b> IDE for teams
 and their agent.</a></div></div>
<div class="result results_links results_links_deep web-result"><div class="links_main links_deep result__body">
<h2 class="result__title"><a rel="nofollow" class="result__a" href="https://example.org/direct">Direct link</a></h2>
<a class="result__snippet" href="https://example.org/direct">Second result.</a></div></div>
<div class="result results_links web-result"><h2 class="result__title"><a class="result__a" href="javascript:alert(1)">Bad</a></h2></div>
</div></body></html>`;

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
      else if (req.url?.startsWith("/ddg/html/")) {
        res.setHeader("content-type", "text/html; charset=utf-8");
        res.end(DUCKDUCKGO_PAGE);
      } else res.writeHead(500).end("{}");
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

  it("reads DuckDuckGo's HTML results: ads left out, redirect links unwrapped, only http(s) links", async () => {
    const s = await session({ webSearch: { kind: "duckduckgo", url: `${base}/ddg/html/` } });
    const run = await s.run(webSearchTool, { query: "browser ide" });
    expect(run.llm).toBe(
      "1. Tandem docs\n   https://tandem.dev/docs?a=1\n   A browser IDE for teams and their agent.\n" +
        "2. Direct link\n   https://example.org/direct\n   Second result.",
    );
    expect(seen.at(-1)!.url).toBe("/ddg/html/?q=browser+ide");
    expect((await s.run(webSearchTool, { query: "x", limit: 1 })).meta?.results).toBe(1);
    const off = await session({
      webSearch: { kind: "duckduckgo", url: `${base}/ddg/html/` },
      sandbox: { mode: "none", network: { policy: "off", allowHosts: [] }, limits: null },
    });
    expect((await off.run(webSearchTool, { query: "q" })).error?.code).toBe("NETWORK_POLICY");
  });

  it("reports a failing or missing backend as UNAVAILABLE", async () => {
    const broken = await session({ webSearch: { kind: "searxng", url: `${base}/down` } });
    expect((await broken.run(webSearchTool, { query: "q" })).error?.code).toBe("UNAVAILABLE");
    const none = await session();
    expect((await none.run(webSearchTool, { query: "q" })).error?.code).toBe("UNAVAILABLE");
  });
});
