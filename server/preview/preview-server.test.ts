import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
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
import { createPreviewAccess } from "./preview-access";
import { createPreviewHandlers, PREVIEW_ENTER_PATH } from "./preview-server";

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

describeSandboxed("the preview proxy", () => {
  let dir: string;
  let sandbox: Sandbox;
  let shell: ShellSession;
  let proxy: http.Server;
  let proxyPort: number;
  const projectId = randomUUID();
  const members = new Set(["member", "second-member"]);
  const access = createPreviewAccess("preview test secret");
  const host = (port = 5173) => `${port}-${projectId}.localhost:${proxyPort}`;

  type Answer = { status: number; headers: http.IncomingHttpHeaders; body: string };
  const request = (
    target: string,
    options: { headers?: Record<string, string>; method?: string; body?: string; hostName?: string } = {},
  ) =>
    new Promise<Answer>((resolve, reject) => {
      const req = http.request(
        {
          host: "127.0.0.1",
          port: proxyPort,
          path: target,
          method: options.method ?? "GET",
          headers: { host: options.hostName ?? host(), ...options.headers },
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
      `${PREVIEW_ENTER_PATH}?t=${encodeURIComponent(access.entryToken(projectId, port, userId))}`,
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
    const handlers = createPreviewHandlers({
      access,
      domain: "localhost",
      secure: false,
      member: async (userId) => members.has(userId),
      connect: (target) => sandbox.networks!.connect(dir, target.port),
    });
    proxy = http.createServer((req, res) => void handlers.request(req, res));
    proxy.on("upgrade", (req, socket, head) => void handlers.upgrade(req, socket, head));
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    proxyPort = (proxy.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await shell?.dispose();
    await sandbox?.networks?.close();
    proxy?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it.runIf(canSwitchIdentity())(
    "serves members through a one-time link, and nobody else",
    async () => {
      await shell.start("node dev.js");
      await until(
        async () => (await sandbox.networks!.ports(dir)).some((p) => p.port === 5173),
        "the dev server",
        15_000,
      );

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
      const link = `${PREVIEW_ENTER_PATH}?t=${encodeURIComponent(access.entryToken(projectId, 5173, "member"))}`;
      expect((await request(link)).status).toBe(302);
      expect((await request(link)).status).toBe(403);
      expect((await request(link, { hostName: host(5174) })).status).toBe(403);
      const outsider = `${PREVIEW_ENTER_PATH}?t=${encodeURIComponent(access.entryToken(projectId, 5173, "outsider"))}`;
      expect((await request(outsider)).status).toBe(403);
      // The session of one port opens no other port of the project.
      expect((await request("/", { hostName: host(5174), headers: { cookie } })).status).toBe(403);
      // A member who left the project is out at once.
      members.delete("second-member");
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
    },
    30_000,
  );
});
