import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useToolSessions } from "@/server/test/tool-session";
import type { ToolContext } from "./define-tool";
import { webCrawlTool } from "./web-crawl";

// web_crawl against two real HTTP servers on loopback: the site, and another origin it links and
// redirects to, which must never be read. The site's pages: / → /a, /b; /a → /c (depth 2);
// /b → #fragment, /private (robots.txt forbids it), the other origin, a redirect off the site.

const tools = useToolSessions();
let site: Server;
let other: Server;
let origin = "";
let otherOrigin = "";
const hits: string[] = [];
let otherHits = 0;

const page = (title: string, body: string) =>
  `<!doctype html><html><head><title>${title}</title></head><body><main><h1>${title}</h1><p>${body}</p></main></body></html>`;

function listen(server: Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );
}

beforeAll(async () => {
  other = createServer((_req, res) => {
    otherHits++;
    res.setHeader("content-type", "text/html");
    res.end(page("Elsewhere", "not this site"));
  });
  otherOrigin = await listen(other);
  site = createServer((req, res) => {
    hits.push(req.url ?? "");
    res.setHeader("content-type", "text/html");
    switch (req.url) {
      case "/robots.txt":
        res.setHeader("content-type", "text/plain");
        return res.end("User-agent: other-bot\nDisallow: /\n\nUser-agent: *\nDisallow: /private\n");
      case "/":
        return res.end(page("Home", `Welcome. <a href="/a">A</a> <a href="b">B</a> <a href="/a#top">A again</a>`));
      case "/a":
        return res.end(page("Page A", `Alpha text. <a href="/c">C</a>`));
      case "/b":
        return res.end(
          page(
            "Page B",
            `Beta text. <a href="/private/keys">private</a> <a href="${otherOrigin}/x">other</a> <a href="/away">away</a> <a href="mailto:a@b.c">mail</a>`,
          ),
        );
      case "/c":
        return res.end(page("Page C", "Gamma text."));
      case "/away":
        res.writeHead(302, { location: `${otherOrigin}/landing` });
        return res.end();
      default:
        res.writeHead(404).end("missing");
    }
  });
  origin = await listen(site);
});
afterAll(() => {
  site.close();
  other.close();
});

const session = (overrides: Partial<ToolContext> = {}) =>
  tools({
    sandbox: { mode: "none", network: { policy: "open", allowHosts: [] }, limits: null },
    fetchPolicy: { allowHosts: [new URL(origin).host, new URL(otherOrigin).host] },
    ...overrides,
  });

describe("web_crawl", () => {
  it("follows links within the site breadth-first to max_depth, once each, obeying robots.txt", async () => {
    const s = await session();
    hits.length = 0;
    otherHits = 0;
    const run = await s.run(webCrawlTool, { url: `${origin}/`, max_depth: 1 });
    expect(run.error).toBeUndefined();
    expect(run.meta?.urls).toEqual([`${origin}/`, `${origin}/a`, `${origin}/b`]);
    expect(run.llm).toContain("Alpha text.");
    expect(run.llm).toContain("Beta text.");
    expect(run.llm).not.toContain("Gamma text.");
    const deeper = await s.run(webCrawlTool, { url: `${origin}/`, max_depth: 2 });
    expect(deeper.meta?.urls).toEqual([`${origin}/`, `${origin}/a`, `${origin}/b`, `${origin}/c`]);
    expect(deeper.llm).toContain("Gamma text.");
    expect(deeper.llm).toContain("redirected off the site");
    expect(deeper.llm).not.toContain("not this site");
    expect(hits).not.toContain("/private/keys");
    // Links to the other origin are never followed (the off-site redirect is fetched, not read).
    expect(otherHits).toBe(1);
  });

  it("stops at max_pages and says how many links were left", async () => {
    const s = await session();
    const run = await s.run(webCrawlTool, { url: `${origin}/`, max_depth: 3, max_pages: 2 });
    expect(run.meta?.pages).toBe(2);
    expect(run.llm).toMatch(/\d+ more link\(s\) on the site were not read \(max_pages 2\)/);
  });

  it("keeps to path_prefix, and refuses a start URL robots.txt forbids", async () => {
    const s = await session();
    const run = await s.run(webCrawlTool, { url: `${origin}/a`, path_prefix: "/a" });
    expect(run.meta?.urls).toEqual([`${origin}/a`]);
    const refused = await s.run(webCrawlTool, { url: `${origin}/private/keys` });
    expect(refused.error?.code).toBe("DENIED");
  });

  it("goes by web_fetch's address check and the project's network policy", async () => {
    hits.length = 0;
    const local = await session({ fetchPolicy: { allowHosts: [] } });
    expect((await local.run(webCrawlTool, { url: `${origin}/` })).error?.code).toBe("BLOCKED_ADDRESS");
    const off = await session({ sandbox: { mode: "none", network: { policy: "off", allowHosts: [] }, limits: null } });
    expect((await off.run(webCrawlTool, { url: `${origin}/` })).error?.code).toBe("NETWORK_POLICY");
    expect(hits).toEqual([]);
  });
});
