import { lookup } from "node:dns/promises";
import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NetworkPolicy } from "@/lib/egress-policy";
import type { FetchPolicy } from "./define-tool";
import { useToolSessions } from "@/server/test/tool-session";
import { webFetchTool } from "./web-fetch";

const session = useToolSessions();

const ARTICLE = `<!doctype html><html><head><title>Tandem notes</title><script>alert(1)</script></head><body>
<nav><a href="/home">Home</a></nav>
<article><h1>Working together</h1>
<p>Tandem is a browser IDE where a team and a coding agent work on the same code. ${"It keeps every change reviewable. ".repeat(12)}</p>
<h2>Tools</h2><ul><li>read</li><li>edit</li></ul>
<p>See <a href="/docs/tools">the tools page</a> and <code>npm test</code>.</p>
<pre><code>const x = 1;</code></pre></article>
<footer>© footer</footer></body></html>`;

let allowed: Server;
let forbidden: Server;
let allowedPort = 0;
let forbiddenPort = 0;
let forbiddenHits = 0;

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)));
}

beforeAll(async () => {
  forbidden = createServer((_req, res) => {
    forbiddenHits++;
    res.end("internal secret");
  });
  forbiddenPort = await listen(forbidden);
  allowed = createServer((req, res) => {
    const url = req.url ?? "/";
    const redirect = /^\/redirect\/(\d+)$/.exec(url);
    if (url === "/article") res.setHeader("content-type", "text/html; charset=utf-8").end(ARTICLE);
    else if (url === "/json") res.setHeader("content-type", "application/json").end('{"ok":true,"items":[1,2]}');
    else if (url === "/big") {
      res.setHeader("content-type", "text/plain");
      const chunk = "x".repeat(64 * 1024);
      let sent = 0;
      const pump = () => {
        while (sent < 6 * 1024 * 1024) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", pump);
        }
        res.end();
      };
      pump();
    } else if (url === "/big-declared") res.setHeader("content-length", String(6 * 1024 * 1024)).end();
    else if (redirect) {
      const n = Number(redirect[1]);
      if (n === 0) res.setHeader("content-type", "text/plain").end("arrived");
      else res.writeHead(302, { location: `/redirect/${n - 1}` }).end();
    } else if (url === "/to-loopback") res.writeHead(302, { location: `http://127.0.0.1:${forbiddenPort}/` }).end();
    else if (url === "/to-localhost") res.writeHead(301, { location: `http://localhost:${forbiddenPort}/` }).end();
    else if (url === "/to-metadata") res.writeHead(307, { location: "http://169.254.169.254/latest/meta-data/" }).end();
    else if (url === "/slow") setTimeout(() => res.end("late"), 5000);
    else if (url === "/logo.bin")
      res.setHeader("content-type", "application/octet-stream").end(Buffer.from([0, 1, 2, 3, 255]));
    else res.writeHead(404).end("not here");
  });
  allowedPort = await listen(allowed);
});

afterAll(() => {
  allowed.close();
  forbidden.close();
});

/**
 * Server configuration for tests: one allowed local host, a resolver for names tests invent, and
 * the project's network policy (open, unless a test says otherwise).
 */
function policy(project: NetworkPolicy = { policy: "open", allowHosts: [] }): FetchPolicy {
  return {
    allowHosts: [`127.0.0.1:${allowedPort}`],
    projectNetwork: async () => project,
    timeoutMs: 1000,
    resolve: async (hostname) => {
      const nip = /^(.+)\.nip\.io$/.exec(hostname);
      if (nip) return [{ address: nip[1]!, family: 4 }];
      if (hostname === "rebind.example")
        return [
          { address: "93.184.216.34", family: 4 },
          { address: "127.0.0.1", family: 4 },
        ];
      return lookup(hostname, { all: true });
    },
  };
}

async function fetchSession() {
  return session({ fetchPolicy: policy() });
}

const base = () => `http://127.0.0.1:${allowedPort}`;

describe("web_fetch", () => {
  it("turns an HTML page into readable Markdown", async () => {
    const s = await fetchSession();
    const run = await s.run(webFetchTool, { url: `${base()}/article` });
    expect(run.error).toBeUndefined();
    const text = run.llm as string;
    expect(text).toContain("## Tools");
    expect(text).toMatch(/-\s+read/);
    expect(text).toContain(`[the tools page](${base()}/docs/tools)`);
    expect(text).toContain("```\nconst x = 1;\n```");
    expect(text).not.toContain("alert(1)");
    expect(text).not.toContain("footer");
    expect(run.display.kind).toBe("markdown");
  });

  it("returns JSON and raw HTML as they are", async () => {
    const s = await fetchSession();
    expect((await s.run(webFetchTool, { url: `${base()}/json` })).llm).toContain('{"ok":true,"items":[1,2]}');
    expect((await s.run(webFetchTool, { url: `${base()}/article`, raw: true })).llm).toContain("<article><h1>");
  });

  it("applies a prompt with the configured model, and returns the content without one", async () => {
    const s = await fetchSession();
    const withModel = await s.run(
      webFetchTool,
      { url: `${base()}/article`, prompt: "What is Tandem?" },
      {
        summarize: async (prompt, content) => `${prompt} -> ${content.includes("browser IDE") ? "a browser IDE" : "?"}`,
      },
    );
    expect(withModel.llm).toContain("What is Tandem? -> a browser IDE");
    const without = await s.run(webFetchTool, { url: `${base()}/article`, prompt: "What is Tandem?" });
    expect(without.llm).toContain("No model is configured");
  });

  it("refuses bodies over the size cap, streamed or declared", async () => {
    const s = await fetchSession();
    expect((await s.run(webFetchTool, { url: `${base()}/big` })).error?.code).toBe("TOO_LARGE");
    expect((await s.run(webFetchTool, { url: `${base()}/big-declared` })).error?.code).toBe("TOO_LARGE");
  });

  it("follows at most 5 redirects", async () => {
    const s = await fetchSession();
    expect((await s.run(webFetchTool, { url: `${base()}/redirect/5` })).llm).toContain("arrived");
    const six = await s.run(webFetchTool, { url: `${base()}/redirect/6` });
    expect(six.error?.code).toBe("FETCH_FAILED");
    expect(six.llm).toContain("Too many redirects");
  });

  it("times out", async () => {
    const s = await fetchSession();
    const run = await s.run(webFetchTool, { url: `${base()}/slow` });
    expect(run.error?.code).toBe("TIMEOUT");
  });

  it("waits as long as timeout_ms asks, up to 90 s", async () => {
    const s = await session({ fetchPolicy: { ...policy(), timeoutMs: undefined } });
    const started = Date.now();
    const run = await s.run(webFetchTool, { url: `${base()}/slow`, timeout_ms: 1_200 });
    expect(run.error?.code).toBe("TIMEOUT");
    expect(run.llm).toContain("within 1.2 s");
    expect(Date.now() - started).toBeLessThan(10_000);
    expect((await s.run(webFetchTool, { url: `${base()}/slow`, timeout_ms: 120_000 })).error?.code).toBe(
      "INVALID_INPUT",
    );
  });

  it("refuses other schemes", async () => {
    const s = await fetchSession();
    for (const url of ["file:///etc/passwd", "ftp://example.com/", "gopher://x/", "not a url"]) {
      expect((await s.run(webFetchTool, { url })).error?.code).toBe("INVALID_INPUT");
    }
  });

  it("refuses every blocked address form, and redirects into them from an allowed host", async () => {
    const s = await fetchSession();
    const p = forbiddenPort;
    const attempts = [
      `http://127.0.0.1:${p}/`,
      `http://localhost:${p}/`,
      `http://[::1]:${p}/`,
      `http://2130706433:${p}/`,
      `http://0177.0.0.1:${p}/`,
      `http://0x7f.0.0.1:${p}/`,
      `http://127.1:${p}/`,
      `http://0.0.0.0:${p}/`,
      `http://[::]:${p}/`,
      `http://[::ffff:127.0.0.1]:${p}/`,
      `http://[::ffff:7f00:1]:${p}/`,
      `http://127.0.0.1.nip.io:${p}/`,
      `http://rebind.example:${p}/`,
      "http://10.0.0.1/",
      "http://172.16.5.4/",
      "http://192.168.0.1/",
      "http://100.64.1.1/",
      "http://169.254.169.254/latest/meta-data/",
      "http://[fd00::1]/",
      "http://[fe80::1]/",
      "http://224.0.0.251/",
      `${base()}/to-loopback`,
      `${base()}/to-localhost`,
      `${base()}/to-metadata`,
    ];
    const before = forbiddenHits;
    for (const url of attempts) {
      const run = await s.run(webFetchTool, { url });
      expect({ url, code: run.error?.code }).toEqual({ url, code: "BLOCKED_ADDRESS" });
    }
    expect(forbiddenHits).toBe(before);
  });

  it("checks every hop against the project's allow-list: a redirect to a host not on it is refused before it connects", async () => {
    const s = await session({ fetchPolicy: policy({ policy: "allow-list", allowHosts: ["127.0.0.1"] }) });
    expect((await s.run(webFetchTool, { url: `${base()}/json` })).error).toBeUndefined();
    const before = forbiddenHits;
    const run = await s.run(webFetchTool, { url: `${base()}/to-localhost` });
    expect(run.error?.code).toBe("NETWORK_POLICY");
    expect(run.meta?.deniedHosts).toEqual(["localhost"]);
    const off = await session({ fetchPolicy: policy({ policy: "off", allowHosts: [] }) });
    expect((await off.run(webFetchTool, { url: `${base()}/json`, download: true })).error?.code).toBe("NETWORK_POLICY");
    expect(forbiddenHits).toBe(before);
  });

  it("downloads into the workspace, and never outside it or over an existing file", async () => {
    const s = await fetchSession();
    const binary = await s.run(webFetchTool, { url: `${base()}/logo.bin` });
    expect(binary.error?.code).toBe("BINARY_FILE");
    const saved = await s.run(webFetchTool, {
      url: `${base()}/logo.bin`,
      download: true,
      output_path: "assets/logo.bin",
    });
    expect(saved.error).toBeUndefined();
    expect(saved.meta).toMatchObject({ path: "assets/logo.bin", size: 5, mediaType: "application/octet-stream" });
    expect([...(await readFile(path.join(s.root, "assets/logo.bin")))]).toEqual([0, 1, 2, 3, 255]);
    const again = await s.run(webFetchTool, {
      url: `${base()}/logo.bin`,
      download: true,
      output_path: "assets/logo.bin",
    });
    expect(again.error?.code).toBe("EXISTS");
    const byDefault = await s.run(webFetchTool, { url: `${base()}/json`, download: true });
    expect(byDefault.meta?.path).toBe("downloads/json");
    const climb = await s.run(webFetchTool, { url: `${base()}/json`, download: true, output_path: "../evil.json" });
    expect(climb.error?.code).toBe("OUTSIDE_WORKSPACE");
  });
});
