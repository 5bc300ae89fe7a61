import { createHash, randomUUID } from "node:crypto";
import http from "node:http";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NetworkPolicy } from "@/lib/egress-policy";
import { spendInMemory } from "@/server/preview/preview-access";
import { createPreviewHandlers } from "@/server/preview/preview-server";
import { createPreviews } from "@/server/preview/previews";
import { createAgentBrowsers } from "@/server/services/agent-browsers";
import { useToolSessions } from "@/server/test/tool-session";
import { findChromium } from "./agent-browser/chromium";
import type { Browsers } from "./agent-browser/session-browsers";
import { browserTool } from "./browser";
import { effectOf, type ToolContext } from "./define-tool";
import { toolForcesApproval } from "./registry";

// The agent's browser against real servers on loopback: a dev server reached only through the
// project's preview, a stand-in for Tandem's own server holding a person's cookie, another
// loopback service, and hosts the project's policy allows or not. The pages are the attacker's:
// they redirect, refresh, open popups and call out from scripts to reach Tandem or anything
// else, and every attempt must fail without a byte reaching those servers.

type Hits = string[];
async function serve(handler: http.RequestListener, hits: Hits, onUpgrade = true) {
  const server = http.createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    handler(req, res);
  });
  if (onUpgrade) server.on("upgrade", (req, socket) => (hits.push(`UPGRADE ${req.url}`), socket.destroy()));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as net.AddressInfo).port };
}

const html = (res: http.ServerResponse, body: string) =>
  res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(`<!doctype html>${body}`);

describe("the browser tool under the approval policy", () => {
  it("is a read, except click and type, which change things and ask", async () => {
    const ctx = {} as ToolContext;
    for (const action of ["navigate", "screenshot", "read", "console", "wait"]) {
      expect(effectOf(browserTool, { action }), action).toBe("none");
      expect(await toolForcesApproval(browserTool, { action }, ctx), action).toBe(false);
    }
    for (const action of ["click", "type"]) {
      expect(effectOf(browserTool, { action, text: "Save" }), action).toBe("workspace");
      expect(await toolForcesApproval(browserTool, { action, text: "Save" }, ctx), action).toBe(true);
    }
  });
});

describe.runIf("path" in findChromium(undefined))("the browser tool", () => {
  const projectId = randomUUID();
  const tandemHits: Hits = [];
  const otherHits: Hits = [];
  const outsideHits: Hits = [];
  const devHits: Hits = [];
  let tandem: Awaited<ReturnType<typeof serve>>;
  let other: Awaited<ReturnType<typeof serve>>;
  let outside: Awaited<ReturnType<typeof serve>>;
  let dev: Awaited<ReturnType<typeof serve>>;
  let previewServer: http.Server;
  let browsers: Browsers;
  let policy: NetworkPolicy = { policy: "allow-list", allowHosts: ["allowed.test"] };
  /** The agent sessions whose browsers the tests drive. */
  const agentSessions = new Set<string>();
  const session = useToolSessions();

  beforeAll(async () => {
    tandem = await serve((_req, res) => res.end("tandem api"), tandemHits);
    other = await serve((_req, res) => res.end("internal service"), otherHits);
    outside = await serve((_req, res) => html(res, "<title>Outside</title><p>allowed site</p>"), outsideHits);
    const tandemUrl = `http://127.0.0.1:${tandem.port}`;
    dev = await serve((req, res) => {
      const to = (location: string) => res.writeHead(302, { location }).end();
      switch (req.url) {
        case "/":
          return html(
            res,
            `<title>Counter</title><h1 id="count">0</h1><button onclick="document.getElementById('count').textContent='1'">Add</button>
             <input placeholder="Name" oninput="document.getElementById('greet').textContent='Hi '+this.value"><p id="greet"></p>
             <script>console.error("boom: count is not a function")</script>`,
          );
        case "/to-tandem":
          return to(`${tandemUrl}/api/trpc/project.list`);
        case "/to-file":
          return to("file:///etc/passwd");
        case "/to-denied":
          return to(`http://denied.test:${outside.port}/`);
        case "/to-allowed":
          return to(`http://allowed.test:${outside.port}/`);
        case "/refresh":
          return html(res, `<meta http-equiv="refresh" content="0;url=${tandemUrl}/refreshed">refreshing`);
        case "/live":
          // Hot reload's channel: a WebSocket to the page's own origin, through the preview.
          return html(
            res,
            `<title>Live</title><p id="live">waiting</p><script>
              const ws = new WebSocket("ws://" + location.host + "/hmr");
              ws.onmessage = (e) => (document.getElementById("live").textContent = e.data);
            </script>`,
          );
        case "/popup":
          return html(res, `<title>Popup</title><script>window.open("${tandemUrl}/popup")</script>`);
        case "/scripts":
          return html(
            res,
            `<title>Scripts</title><script>
              fetch("${tandemUrl}/api/trpc/session.send", { method: "POST", credentials: "include", body: "{}" }).catch(() => {});
              fetch("http://127.0.0.1:${other.port}/steal").catch(() => {});
              fetch("http://localhost:${dev.port}/direct").catch(() => {});
              new Image().src = "http://127.0.0.1:${tandem.port}/pixel";
              try { new WebSocket("ws://127.0.0.1:${tandem.port}/api/trpc/ws"); } catch {}
              navigator.sendBeacon("${tandemUrl}/beacon", "x");
            </script>`,
          );
        default:
          res.writeHead(404).end("not found");
      }
    }, devHits);
    dev.server.removeAllListeners("upgrade");
    dev.server.on("upgrade", (req, socket) => {
      const accept = createHash("sha1")
        .update(`${req.headers["sec-websocket-key"]}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`)
        .digest("base64");
      socket.write(
        `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`,
      );
      const text = Buffer.from("hot update applied");
      socket.write(Buffer.concat([Buffer.from([0x81, text.length]), text]));
    });
    const previews = createPreviews({ domain: undefined, publicUrl: undefined }, "browser test secret");
    const handlers = createPreviewHandlers({
      access: previews.access,
      domain: previews.domain,
      secure: false,
      spendEntry: spendInMemory(),
      // The agent's browser's preview sessions are bound to its agent session (the gate checks it lasts), never a login.
      admits: async (grant) =>
        grant.userId === "person" && "agentSessionId" in grant.by && agentSessions.has(grant.by.agentSessionId),
      link: async () => null,
      onAccessEnd: () => () => {},
      // The dev server stands for the workspace network's port: any port of this project reaches it.
      connect: async ({ projectId: id }) =>
        id === projectId
          ? await new Promise<net.Socket>((resolve, reject) => {
              const socket = net.connect(dev.port, "127.0.0.1", () => resolve(socket));
              socket.once("error", reject);
            })
          : Promise.reject(new Error("no such project")),
    });
    previewServer = http.createServer((req, res) => void handlers.request(req, res));
    previewServer.on("upgrade", (req, socket, head) => void handlers.upgrade(req, socket, head));
    await new Promise<void>((resolve) => previewServer.listen(0, "127.0.0.1", resolve));
    previews.listening((previewServer.address() as net.AddressInfo).port);
    browsers = createAgentBrowsers({
      config: {
        browserChromium: undefined,
        publicUrl: tandemUrl,
        port: tandem.port,
        host: "127.0.0.1",
        preview: { port: 0, domain: undefined },
      },
      previews,
      policy: async () => policy,
      log: () => {},
      admit: { testHosts: new Map([["allowed.test", "127.0.0.1"]]) },
    })!;
  }, 60_000);

  afterAll(async () => {
    await browsers?.close();
    for (const s of [tandem, other, outside, dev]) s?.server.close();
    previewServer?.close();
  });

  const context = async (): Promise<Partial<ToolContext>> => {
    const sessionId = randomUUID();
    agentSessions.add(sessionId);
    return { projectId, sessionId, browser: () => browsers.session({ sessionId, projectId, userId: "person" }) };
  };
  const textOf = (llm: unknown) =>
    typeof llm === "string"
      ? llm
      : (llm as { type: string; text?: string }[]).map((p) => p.text ?? "[image]").join("\n");

  it("opens the workspace's server through the preview, shows it, reads its console, clicks and types", async () => {
    const s = await session(await context());
    const opened = await s.run(browserTool, { action: "navigate", url: `http://localhost:${dev.port}/` });
    expect(opened.error).toBeUndefined();
    expect(Array.isArray(opened.llm)).toBe(true);
    const parts = opened.llm as { type: string; mediaType?: string; data?: string }[];
    expect(parts.find((p) => p.type === "image")?.mediaType).toBe("image/png");
    expect(textOf(opened.llm)).toContain(`Page: Counter — http://localhost:${dev.port}/`);
    expect(textOf(opened.llm)).toContain("boom: count is not a function");
    // The dev server got the page through the preview, without any cookie of the preview's.
    expect(devHits).toContain("GET /");

    const logged = await s.run(browserTool, { action: "console" });
    expect(textOf(logged.llm)).toContain("[error] boom: count is not a function");
    expect(textOf((await s.run(browserTool, { action: "console" })).llm)).toContain("Console: nothing new.");

    const clicked = await s.run(browserTool, { action: "click", text: "Add" });
    expect(clicked.error).toBeUndefined();
    const typed = await s.run(browserTool, { action: "type", text: "Name", value: "Ada" });
    expect(typed.error).toBeUndefined();
    const read = await s.run(browserTool, { action: "read" });
    expect(textOf(read.llm)).toMatch(/1\s+Add/);
    expect(textOf(read.llm)).toContain("Hi Ada");
    const tree = await s.run(browserTool, { action: "read", format: "accessibility" });
    expect(textOf(tree.llm)).toContain('button "Add"');
    const waited = await s.run(browserTool, { action: "wait", until: "text", text: "Hi Ada" });
    expect(waited.error).toBeUndefined();
    const missing = await s.run(browserTool, { action: "wait", until: "text", text: "never there", timeout_ms: 300 });
    expect(missing.error?.code).toBe("TIMEOUT");
    const nothing = await s.run(browserTool, { action: "click", selector: "#nope" });
    expect(nothing.error?.code).toBe("NOT_FOUND");

    await s.run(browserTool, { action: "navigate", url: `http://localhost:${dev.port}/live` });
    const live = await s.run(browserTool, { action: "wait", until: "text", text: "hot update applied" });
    expect(live.error).toBeUndefined();
  }, 60_000);

  it("reaches a host the project's policy allows, and names the one it refuses so a person can allow it", async () => {
    const s = await session(await context());
    const allowed = await s.run(browserTool, { action: "navigate", url: `http://localhost:${dev.port}/to-allowed` });
    expect(allowed.error).toBeUndefined();
    expect(textOf(allowed.llm)).toContain("Page: Outside");
    const denied = await s.run(browserTool, { action: "navigate", url: `http://localhost:${dev.port}/to-denied` });
    expect(denied.error?.code).toBe("NETWORK_POLICY");
    expect(denied.meta?.deniedHosts).toEqual(["denied.test"]);
    const reached = outsideHits.length;
    policy = { policy: "off", allowHosts: [] };
    const off = await s.run(browserTool, { action: "navigate", url: `http://allowed.test:${outside.port}/` });
    expect(off.error?.code).toBe("NETWORK_POLICY");
    policy = { policy: "allow-list", allowHosts: ["allowed.test"] };
    expect(outsideHits.length).toBe(reached);
  }, 60_000);

  it("never reaches Tandem, loopback or another project: redirects, refreshes, popups and scripts alike", async () => {
    const ctx = await context();
    const s = await session(ctx);
    const redirected = await s.run(browserTool, { action: "navigate", url: `http://localhost:${dev.port}/to-tandem` });
    expect(redirected.error?.code).toBe("BLOCKED_ADDRESS");
    expect(redirected.error?.message).toContain("Tandem itself");
    const toFile = await s.run(browserTool, { action: "navigate", url: `http://localhost:${dev.port}/to-file` });
    expect(textOf(toFile.llm)).not.toContain("root:");
    // The refresh may land before the page counts as loaded: then the refusal is the answer.
    const refreshed = await s.run(browserTool, { action: "navigate", url: `http://localhost:${dev.port}/refresh` });
    expect([undefined, "BLOCKED_ADDRESS"]).toContain(refreshed.error?.code);
    const popup = await s.run(browserTool, { action: "navigate", url: `http://localhost:${dev.port}/popup` });
    const after = await s.run(browserTool, { action: "screenshot" });
    expect(textOf(popup.llm) + textOf(after.llm)).toContain(
      `A popup to http://127.0.0.1:${tandem.port}/popup was closed`,
    );
    const scripts = await s.run(browserTool, { action: "navigate", url: `http://localhost:${dev.port}/scripts` });
    expect(scripts.error).toBeUndefined();
    // What the page's scripts sent has had time to go out, and was refused at the gate.
    const browser = await ctx.browser!();
    await (await browser.page()).waitForTimeout(1_500);
    const refused = browser.log.refused.map((r) => `${r.host}:${r.port}`);
    expect(refused).toContain(`127.0.0.1:${tandem.port}`);
    expect(refused).toContain(`127.0.0.1:${other.port}`);
    // Straight at Tandem, another loopback service, or another project's preview: refused too.
    const direct = await s.run(browserTool, { action: "navigate", url: `http://127.0.0.1:${tandem.port}/` });
    // localhost means the workspace: that port of this project's preview, never the server's own.
    expect(direct.error).toBeUndefined();
    expect(textOf(direct.llm)).not.toContain("tandem api");
    const previewPort = (previewServer.address() as net.AddressInfo).port;
    const another = await s.run(browserTool, {
      action: "navigate",
      url: `http://5173-${randomUUID()}.localhost:${previewPort}/`,
    });
    expect(another.error?.message).toContain("another project's preview");
    expect(tandemHits).toEqual([]);
    expect(otherHits).toEqual([]);
    expect(devHits).not.toContain("GET /direct");
  }, 60_000);

  it("opens only http and https, and keeps no cookie but its preview sessions", async () => {
    const ctx = await context();
    const s = await session(ctx);
    for (const url of ["file:///etc/passwd", "data:text/html,<h1>x</h1>", "chrome://version", "javascript:alert(1)"]) {
      const result = await s.run(browserTool, { action: "navigate", url });
      expect(result.error?.code, url).toBe("INVALID_INPUT");
    }
    await s.run(browserTool, { action: "navigate", url: `http://localhost:${dev.port}/` });
    const browser = await ctx.browser!();
    const cookies = await (await browser.page()).context().cookies();
    expect(cookies.map((c) => c.name)).toEqual(["tandem_preview"]);
    expect(cookies[0]!.domain).toBe(`${dev.port}-${projectId}.localhost`);
  }, 60_000);
});
