import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import type net from "node:net";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { WebSocket } from "ws";
import { canSwitchIdentity } from "@/server/sandbox/identity";
import { createSandbox, type Sandbox } from "@/server/sandbox/sandbox";
import { describeSandboxed } from "@/server/test/sandbox-guard";
import { until } from "@/server/test/until";
import { createShellSession, type ShellSession } from "@/server/workspace/shell-session";
import { createLinkRevocations } from "@/server/bus/link-revocations";
import { createPreviewAccess, spendInMemory } from "./preview-access";
import { FRAME_SCRIPT_PATH } from "./frame-script";
import { frontedPreviews } from "./preview-front";
import {
  createPreviewHandlers,
  type LivePreviewLink,
  PREVIEW_ENTER_PATH,
  PREVIEW_LINK_PATH,
  type PreviewServerDeps,
} from "./preview-server";
import { linkOpens } from "./preview-visibility";

// The preview proxy against a real dev-style server inside a workspace network: plain HTTP,
// a streamed answer and a WebSocket echo (hot reload's channel), written with node alone
// (the sandbox sees no node_modules of Tandem's). Who gets in, and what the app sees and may do,
// as an attacker would try it.

const DEV_SERVER = `const http = require("http");
const crypto = require("crypto");
const server = http.createServer((req, res) => {
  if (req.url === "/stream") {
    res.write("first ");
    setTimeout(() => res.end("second"), 400);
    return;
  }
  if (req.url === "/forever") return void res.write("tick ");
  // Which of the proxy's connections carried the request.
  if (req.url === "/connection") return void res.end(String(req.socket.remotePort));
  if (req.url === "/page.html") {
    const page = "<!doctype html><html lang=en><head><title>app</title></head><body>" + (req.headers["accept-encoding"] || "plain") + "</body></html>";
    res.writeHead(200, { "content-type": "text/html", "content-length": Buffer.byteLength(page) });
    return void res.end(page);
  }
  let body = "";
  req.on("data", (c) => (body += c));
  req.on("end", () => res.end(JSON.stringify({ method: req.method, url: req.url, host: req.headers.host, origin: req.headers.origin || null, cookie: req.headers.cookie || null, body })));
});
server.on("upgrade", (req, socket) => {
  const accept = crypto.createHash("sha1").update(req.headers["sec-websocket-key"] + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").digest("base64");
  socket.write("HTTP/1.1 101 Switching Protocols\\r\\nUpgrade: websocket\\r\\nConnection: Upgrade\\r\\nSec-WebSocket-Accept: " + accept + "\\r\\n\\r\\n");
  // One unmasked text frame: the Origin and Host the dev server saw.
  const text = Buffer.from(JSON.stringify({ origin: req.headers.origin, host: req.headers.host }));
  socket.write(Buffer.concat([Buffer.from([0x81, text.length]), text]));
});
server.listen(5173, () => console.log("ready"));
`;

/** The login session the entry links are made under (the gate, stood in for here, checks it lasts). */
const LOGIN = { loginSessionId: "login" };

describeSandboxed("the preview proxy", () => {
  let dir: string;
  let sandbox: Sandbox;
  let shell: ShellSession;
  let proxy: net.Server;
  let closeFront: (() => void) | undefined;
  let proxyPort: number;
  let deps: PreviewServerDeps;
  let handlers: ReturnType<typeof createPreviewHandlers>;
  const projectId = randomUUID();
  const members = new Set(["member", "second-member"]);
  // A person's grants, told when the members change, as the gate follows access changes
  // (server/services/preview-gate.ts): what ends a kept connection's admission.
  const memberChanges = new Set<() => void>();
  const removeMember = (name: string) => {
    members.delete(name);
    for (const changed of [...memberChanges]) changed();
  };
  const access = createPreviewAccess("preview test secret");
  // Public links as the gate (server/services/preview-gate.ts) reads them: by token, live or not.
  const links = new Map<string, LivePreviewLink & { revokedAt: Date | null }>();
  const revocations = createLinkRevocations();
  const revoke = (token: string) => {
    const link = links.get(token)!;
    link.revokedAt = new Date();
    revocations.publish(link.id);
  };
  const host = (port = 5173) => `${port}-${projectId}.localhost:${proxyPort}`;

  type Answer = { status: number; headers: http.IncomingHttpHeaders; body: string };
  const request = (
    target: string,
    options: {
      headers?: Record<string, string>;
      method?: string;
      body?: string;
      hostName?: string;
      agent?: http.Agent;
      /** Another instance's preview port. */
      port?: number;
    } = {},
  ) =>
    new Promise<Answer>((resolve, reject) => {
      const req = http.request(
        {
          host: "127.0.0.1",
          port: options.port ?? proxyPort,
          path: target,
          method: options.method ?? "GET",
          headers: { host: options.hostName ?? host(), ...options.headers },
          agent: options.agent,
        },
        (res) => {
          let body = "";
          res.setEncoding("utf8").on("data", (c: string) => (body += c));
          res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body }));
        },
      );
      req.on("error", reject);
      req.end(options.body);
    });

  /** Enters through a one-time link for `userId` and returns the preview session's cookie. */
  const enter = async (userId: string, port = 5173) => {
    const answer = await request(
      `${PREVIEW_ENTER_PATH}?t=${encodeURIComponent(access.entryToken(projectId, port, userId, LOGIN))}`,
      {
        hostName: host(port),
      },
    );
    expect(answer.status).toBe(302);
    const cookie = String(answer.headers["set-cookie"]);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).not.toMatch(/Domain=/i);
    return cookie.split(";")[0]!;
  };

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "tandem-preview-"));
    writeFileSync(path.join(dir, "dev.js"), DEV_SERVER);
    sandbox = createSandbox({
      host: { mode: "bwrap", masks: [], perProjectUid: true, limits: null },
      policies: { get: async () => ({ policy: "off", allowHosts: [] }) },
    });
    shell = createShellSession({ workspace: { root: dir }, projectId, sessionId: "dev", sandbox });
    deps = {
      access,
      domain: "localhost",
      secure: false,
      // As the database does for every instance of a cluster (server/services/preview-gate.ts).
      spendEntry: spendInMemory(),
      admits: async (grant) =>
        grant.userId !== undefined
          ? members.has(grant.userId)
          : linkOpens([...links.values()].find((l) => l.id === grant.linkId) ?? null, grant),
      link: async (token, target) => {
        const link = links.get(token);
        return link && linkOpens(link, target) ? link : null;
      },
      onAccessEnd: (grant, ended) => {
        if (grant.linkId !== undefined) return revocations.subscribe(grant.linkId, ended);
        const changed = () => void deps.admits(grant).then((ok) => ok || ended());
        memberChanges.add(changed);
        return () => memberChanges.delete(changed);
      },
      connect: (target) => sandbox.networks!.connect(dir, target.port),
    };
    handlers = createPreviewHandlers(deps);
    const fronted = frontedPreviews(handlers);
    closeFront = () => fronted.front.closeAll();
    proxy = fronted.front.server;
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    proxyPort = (proxy.address() as AddressInfo).port;
    // Every test talks to this one dev server, so each passes alone.
    if (canSwitchIdentity()) {
      await shell.start("node dev.js");
      await until(
        async () => (await sandbox.networks!.ports(dir)).some((p) => p.port === 5173),
        "the dev server",
        15_000,
      );
    }
  }, 30_000);

  afterAll(async () => {
    await shell?.dispose();
    await sandbox?.networks?.close();
    closeFront?.();
    proxy?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it.runIf(canSwitchIdentity())(
    "serves members through a one-time link, and nobody else",
    async () => {
      members.add("second-member");
      const cookie = await enter("member");
      const answer = await request("/some/page?x=1", {
        headers: { cookie: `${cookie}; app_cookie=kept`, origin: `http://${host()}` },
      });
      expect(answer.status).toBe(200);
      // The dev server sees itself as opened on its own machine, and never the preview's session.
      expect(JSON.parse(answer.body)).toMatchObject({
        url: "/some/page?x=1",
        host: "localhost:5173",
        origin: "http://localhost:5173",
        cookie: "app_cookie=kept",
      });
      // A second member enters with a link of their own.
      expect((await request("/", { headers: { cookie: await enter("second-member") } })).status).toBe(200);

      // A stranger: no session, a forged one, a used link again, a link for another port, a non-member's link.
      expect((await request("/")).status).toBe(403);
      expect((await request("/", { headers: { cookie: "tandem_preview=forged.value" } })).status).toBe(403);
      const link = `${PREVIEW_ENTER_PATH}?t=${encodeURIComponent(access.entryToken(projectId, 5173, "member", LOGIN))}`;
      expect((await request(link)).status).toBe(302);
      expect((await request(link)).status).toBe(403);
      expect((await request(link, { hostName: host(5174) })).status).toBe(403);
      const outsider = `${PREVIEW_ENTER_PATH}?t=${encodeURIComponent(access.entryToken(projectId, 5173, "outsider", LOGIN))}`;
      expect((await request(outsider)).status).toBe(403);
      // The session of one port opens no other port of the project.
      expect((await request("/", { hostName: host(5174), headers: { cookie } })).status).toBe(403);
      // A member who left the project is out at once.
      removeMember("second-member");
      expect((await request("/", { headers: { cookie: await enter("member") } })).status).toBe(200);
    },
    60_000,
  );

  it.runIf(canSwitchIdentity())(
    "streams answers, carries WebSockets, refuses other origins' writes and sockets",
    async () => {
      await until(
        async () => (await sandbox.networks!.ports(dir)).some((p) => p.port === 5173),
        "the dev server",
        15_000,
      );
      const cookie = await enter("member");

      // Streamed: the first part arrives before the server has finished.
      const started = Date.now();
      const firstChunkAt = await new Promise<number>((resolve) => {
        http
          .get({ host: "127.0.0.1", port: proxyPort, path: "/stream", headers: { host: host(), cookie } }, (res) =>
            res.once("data", () => resolve(Date.now() - started)),
          )
          .end();
      });
      expect(firstChunkAt).toBeLessThan(350);

      const post = (origin: string) =>
        request("/save", { method: "POST", body: "x=1", headers: { cookie, origin, "content-type": "text/plain" } });
      expect((await post(`http://${host()}`)).status).toBe(200);
      // Another project's preview (same site, another origin) cannot use this person's session to write.
      expect((await post(`http://5173-${randomUUID()}.localhost:${proxyPort}`)).status).toBe(403);

      const socket = (origin: string) =>
        new Promise<string>((resolve) => {
          const ws = new WebSocket(`ws://127.0.0.1:${proxyPort}/hmr`, { headers: { host: host(), cookie, origin } });
          ws.on("message", (data) => {
            resolve(String(data));
            ws.close();
          });
          ws.on("error", (error) => resolve(`refused: ${error.message}`));
        });
      expect(JSON.parse(await socket(`http://${host()}`))).toEqual({
        origin: "http://localhost:5173",
        host: "localhost:5173",
      });
      expect(await socket("http://evil.example")).toMatch(/refused: .*403/);
    },
    60_000,
  );

  it.runIf(canSwitchIdentity())(
    "closes the WebSockets it relays when the server stops, though Node's server no longer holds them",
    async () => {
      const cookie = await enter("member");
      const ws = new WebSocket(`ws://127.0.0.1:${proxyPort}/hmr`, {
        headers: { host: host(), cookie, origin: `http://${host()}` },
      });
      await new Promise((resolve) => ws.once("message", resolve));
      const closed = new Promise<void>((resolve) => ws.once("close", () => resolve()));
      const from = Date.now();
      handlers.closeSockets();
      await closed;
      expect(Date.now() - from).toBeLessThan(1_000);
    },
    60_000,
  );

  it.runIf(canSwitchIdentity())(
    "a public link opens its own port to anyone holding it, until it expires or is revoked, and revoking closes what it has open",
    async () => {
      await until(
        async () => (await sandbox.networks!.ports(dir)).some((p) => p.port === 5173),
        "the dev server",
        15_000,
      );
      const hour = 3_600_000;
      const add = (token: string, link: Partial<LivePreviewLink> = {}) =>
        links.set(token, {
          id: randomUUID(),
          projectId,
          port: 5173,
          expiresAt: new Date(Date.now() + hour),
          revokedAt: null,
          ...link,
        });
      const live = "L".repeat(43);
      add(live);
      add("E".repeat(43), { expiresAt: new Date(Date.now() - 1) });
      add("P".repeat(43), { port: 5174 });
      add("O".repeat(43), { projectId: randomUUID() });
      const enterLink = async (token: string, hostName = host()) =>
        request(`${PREVIEW_LINK_PATH}?t=${token}`, { hostName });
      const entered = await enterLink(live);
      expect(entered.status).toBe(302);
      const cookie = String(entered.headers["set-cookie"]).split(";")[0]!;
      const seen = await request("/", { headers: { cookie } });
      expect(seen.status).toBe(200);
      expect(JSON.parse(seen.body).cookie).toBeNull();
      // An expired link, a link of another port, of another project, a made-up token, the right token on another port.
      expect((await enterLink("E".repeat(43))).status).toBe(403);
      expect((await enterLink("P".repeat(43))).status).toBe(403);
      expect((await enterLink("O".repeat(43))).status).toBe(403);
      expect((await enterLink("X".repeat(43))).status).toBe(403);
      expect((await enterLink(live, host(5174))).status).toBe(403);
      // The link's session opens no other port, and a member's entry link is no link.
      expect((await request("/", { hostName: host(5174), headers: { cookie } })).status).toBe(403);
      const memberLink = access.entryToken(projectId, 5173, "member", LOGIN);
      expect((await enterLink(encodeURIComponent(memberLink))).status).toBe(403);

      // Open under the link: a WebSocket (hot reload's) and an answer still streaming.
      const ws = new WebSocket(`ws://127.0.0.1:${proxyPort}/hmr`, {
        headers: { host: host(), cookie, origin: `http://${host()}` },
      });
      await new Promise((resolve, reject) => {
        ws.once("message", resolve);
        ws.once("error", reject);
      });
      const wsClosed = new Promise<number>((resolve) => ws.once("close", () => resolve(Date.now())));
      const streamEnded = new Promise<number>((resolve) => {
        http
          .get({ host: "127.0.0.1", port: proxyPort, path: "/forever", headers: { host: host(), cookie } }, (res) => {
            res.once("data", () => revoke(live));
            res.on("close", () => resolve(Date.now()));
            res.resume();
          })
          .on("error", () => resolve(Date.now()));
      });
      const revokedAt = await streamEnded;
      expect((await wsClosed) - revokedAt).toBeLessThan(1_000);
      // Revoked: neither the session nor the token opens anything again.
      expect((await request("/", { headers: { cookie } })).status).toBe(403);
      expect((await enterLink(live)).status).toBe(403);
    },
    60_000,
  );

  it.runIf(canSwitchIdentity())(
    "keeps a connection to the port per person or link, and never carries one's request over another's",
    async () => {
      await until(
        async () => (await sandbox.networks!.ports(dir)).some((p) => p.port === 5173),
        "the dev server",
        15_000,
      );
      members.add("pooled-a").add("pooled-b");
      const token = "K".repeat(43);
      links.set(token, {
        id: randomUUID(),
        projectId,
        port: 5173,
        expiresAt: new Date(Date.now() + 3_600_000),
        revokedAt: null,
      });
      const linkEntered = await request(`${PREVIEW_LINK_PATH}?t=${token}`);
      const cookies = {
        a: await enter("pooled-a"),
        b: await enter("pooled-b"),
        link: String(linkEntered.headers["set-cookie"]).split(";")[0]!,
      };
      const seen: Record<keyof typeof cookies, Set<string>> = { a: new Set(), b: new Set(), link: new Set() };
      const ask = async (who: keyof typeof cookies, agent?: http.Agent) => {
        const answer = await request("/connection", { headers: { cookie: cookies[who] }, agent });
        expect(answer.status).toBe(200);
        seen[who].add(answer.body);
      };
      // Each session's browser connection, kept between requests: one connection into the workspace each.
      for (const who of ["a", "b", "link"] as const) {
        const browser = new http.Agent({ keepAlive: true, maxSockets: 1 });
        for (let i = 0; i < 5; i++) await ask(who, browser);
        browser.destroy();
      }
      expect([seen.a.size, seen.b.size, seen.link.size]).toEqual([1, 1, 1]);
      // One browser connection carrying all three sessions' requests, one after another; and at once.
      const shared = new http.Agent({ keepAlive: true, maxSockets: 1 });
      for (let i = 0; i < 5; i++) for (const who of ["a", "b", "link", "a"] as const) await ask(who, shared);
      await Promise.all(Array.from({ length: 8 }, (_, i) => ask((["a", "b", "link"] as const)[i % 3]!)));
      shared.destroy();
      for (const [one, other] of [
        ["a", "b"],
        ["a", "link"],
        ["b", "link"],
      ] as const)
        expect([...seen[one]].filter((port) => seen[other].has(port))).toEqual([]);
      // A kept connection lets no one in who may no longer open the port: it ends as their access does.
      const kept = new http.Agent({ keepAlive: true, maxSockets: 1 });
      await ask("b", kept);
      const keptSocket = Object.values(kept.freeSockets).flat()[0]!;
      const keptClosed = new Promise((resolve) => keptSocket.once("close", resolve));
      removeMember("pooled-b");
      await keptClosed;
      kept.destroy();
      expect((await request("/connection", { headers: { cookie: cookies.b }, agent: kept })).status).toBe(403);
    },
    60_000,
  );

  it.runIf(canSwitchIdentity())(
    "adds the console script to a page loaded in a frame, and to nothing else",
    async () => {
      await until(
        async () => (await sandbox.networks!.ports(dir)).some((p) => p.port === 5173),
        "the dev server",
        15_000,
      );
      const frame = { "sec-fetch-dest": "iframe" };
      const entered = await request(
        `${PREVIEW_ENTER_PATH}?t=${encodeURIComponent(access.entryToken(projectId, 5173, "member", LOGIN, "/page.html"))}`,
        { headers: frame },
      );
      // In the IDE's frame the preview is a third party: its cookie is partitioned under the IDE's site.
      expect(entered.status).toBe(302);
      expect(entered.headers.location).toBe("/page.html");
      expect(String(entered.headers["set-cookie"])).toMatch(/SameSite=None; Secure; Partitioned/);
      const cookie = String(entered.headers["set-cookie"]).split(";")[0]!;
      const framed = await request("/page.html", { headers: { ...frame, cookie, "accept-encoding": "gzip" } });
      expect(framed.body).toBe(
        `<!doctype html><html lang=en><head><script src="${FRAME_SCRIPT_PATH}"></script><title>app</title></head><body>plain</body></html>`,
      );
      expect(framed.headers["content-length"]).toBeUndefined();
      // A tab of its own, a script or JSON in a frame: as the app sent them.
      const tab = await request("/page.html", { headers: { cookie, "accept-encoding": "gzip" } });
      expect(tab.body).not.toContain(FRAME_SCRIPT_PATH);
      expect(tab.body).toContain("<body>gzip</body>");
      expect((await request("/data.json", { headers: { ...frame, cookie } })).body).not.toContain(FRAME_SCRIPT_PATH);
      const script = await request(FRAME_SCRIPT_PATH);
      expect(script.status).toBe(200);
      expect(script.headers["content-type"]).toMatch(/javascript/);
    },
    60_000,
  );

  it.runIf(canSwitchIdentity())(
    "an entry link opens once in a whole cluster: replayed at another instance, it is refused",
    async () => {
      // Another instance: its own process memory, the same secret and the same database.
      const second = createPreviewHandlers({ ...deps, access: createPreviewAccess("preview test secret") });
      const other = http.createServer((req, res) => void second.request(req, res));
      await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
      const otherPort = (other.address() as AddressInfo).port;
      try {
        for (const [first, then] of [
          [proxyPort, otherPort],
          [otherPort, proxyPort],
        ]) {
          const link = `${PREVIEW_ENTER_PATH}?t=${encodeURIComponent(access.entryToken(projectId, 5173, "member", LOGIN))}`;
          const [a, b] = await Promise.all([request(link, { port: first }), request(link, { port: then })]);
          expect([a.status, b.status].sort()).toEqual([302, 403]);
          expect((await request(link, { port: first })).status).toBe(403);
        }
      } finally {
        other.close();
      }
    },
    30_000,
  );

  it.runIf(canSwitchIdentity())(
    "says so when the port stops listening",
    async () => {
      const cookie = await enter("member");
      await sandbox.networks!.stop(dir, 5173);
      await until(
        async () => !(await sandbox.networks!.ports(dir)).some((p) => p.port === 5173),
        "the server stopped",
        10_000,
      );
      const answer = await request("/", { headers: { cookie } });
      expect(answer.status).toBe(502);
      expect(answer.body).toContain("Nothing is listening on port 5173");
      // Listening again for whichever test runs next.
      await shell.start("node dev.js");
      await until(
        async () => (await sandbox.networks!.ports(dir)).some((p) => p.port === 5173),
        "the dev server again",
        15_000,
      );
    },
    30_000,
  );
});
