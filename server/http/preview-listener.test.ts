import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { WebSocket } from "ws";
import type { Services } from "@/server/api/context";
import {
  createWorkspaceForwarding,
  FORWARDED_HEADER,
  forwardingHeader,
  forwardingKey,
  type WorkspaceForwarding,
} from "@/server/cluster/workspace-forwarding";
import type { WorkspaceOwner } from "@/server/cluster/workspace-host";
import { createPreviewAccess, spendInMemory } from "@/server/preview/preview-access";
import { PREVIEW_COOKIE } from "@/server/preview/preview-headers";
import { PREVIEW_ENTER_PATH } from "@/server/preview/preview-server";
import { createPreviews } from "@/server/preview/previews";
import { canSwitchIdentity } from "@/server/sandbox/identity";
import { createSandbox, type Sandbox } from "@/server/sandbox/sandbox";
import { describeSandboxed } from "@/server/test/sandbox-guard";
import { until } from "@/server/test/until";
import { createShellSession, type ShellSession } from "@/server/workspace/shell-session";
import { listenPreviews, type PreviewListener } from "./preview-listener";

// Previews across instances: a preview request reaching instance B for a workspace that runs on
// instance A is admitted on B, forwarded to A's main port signed, and served there by A's own
// preview server, which admits it again. Two instances in one process, each with the listener
// start-server.ts makes and its main port's one line for a peer's request; a real dev server in
// A's workspace network, which B has none of.

const DEV_SERVER = `const http = require("http");
const crypto = require("crypto");
http.createServer((req, res) => res.end(JSON.stringify({ url: req.url, host: req.headers.host, headers: Object.keys(req.headers) })))
  .on("upgrade", (req, socket) => {
    const accept = crypto.createHash("sha1").update(req.headers["sec-websocket-key"] + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").digest("base64");
    socket.write("HTTP/1.1 101 Switching Protocols\\r\\nUpgrade: websocket\\r\\nConnection: Upgrade\\r\\nSec-WebSocket-Accept: " + accept + "\\r\\n\\r\\n");
    const text = Buffer.from(JSON.stringify({ host: req.headers.host }));
    socket.write(Buffer.concat([Buffer.from([0x81, text.length]), text]));
  })
  .listen(5173, () => console.log("ready"));
`;

const SECRET = "cluster preview test secret";

/** The login session the entry links are made under (the gate, stood in for here, checks it lasts). */
const LOGIN = { loginSessionId: "login" };

describeSandboxed("previews across instances", () => {
  let dir: string;
  let sandbox: Sandbox;
  let shell: ShellSession;
  const projectId = randomUUID();
  const members = new Set(["member"]);
  const closing: Array<() => unknown> = [];
  type Instance = {
    listener: PreviewListener;
    forwarding: WorkspaceForwarding;
    main: http.Server;
    previewPort: number;
  };
  let a: Instance;
  let b: Instance;
  // The database both instances share spends entry links (server/services/preview-gate.ts).
  const spent = spendInMemory();
  const spendSignature = spendInMemory();

  /** An instance as start-server.ts wires one: its previews' listener, and its main port taking a peer's preview requests. */
  async function instance(owner: () => Promise<WorkspaceOwner>, networks: boolean): Promise<Instance> {
    const previews = createPreviews({ domain: undefined, publicUrl: undefined }, SECRET);
    const forwarding = createWorkspaceForwarding({
      secret: SECRET,
      host: { owner, hold: async () => {}, start: () => {}, release: async () => {} },
      mayRead: async () => false,
      spend: spendSignature,
    });
    const services = {
      previews,
      config: { host: "127.0.0.1", preview: { port: 0, domain: undefined } },
      previewGate: {
        admits: async (grant: { userId?: string }) => grant.userId !== undefined && members.has(grant.userId),
        spendEntry: spent,
        link: async () => null,
        onAccessEnd: () => () => {},
      },
      sandbox: { networks: networks ? sandbox.networks : null },
      files: { open: async () => ({ root: dir }) },
    } as unknown as Services;
    const listener = await listenPreviews(services, {
      forwarding,
      routed: (arrival) => arrival.kind === "direct",
    });
    const main = http.createServer(async (req, res) => {
      if (req.headers[FORWARDED_HEADER] !== undefined && listener.fromPeer(req, res, await forwarding.arrival(req)))
        return;
      res.writeHead(404).end("the IDE");
    });
    main.on("upgrade", async (req, socket, head) => {
      if (
        req.headers[FORWARDED_HEADER] !== undefined &&
        listener.fromPeerUpgrade(req, socket, head, await forwarding.arrival(req))
      )
        return;
      socket.destroy();
    });
    await new Promise<void>((resolve) => main.listen(0, "127.0.0.1", resolve));
    closing.push(
      () => main.close(),
      () => listener.listener.close(),
      () => forwarding.close(),
    );
    return { listener, forwarding, main, previewPort: (listener.listener.address() as AddressInfo).port };
  }

  const hostOn = (at: Instance) => `5173-${projectId}.localhost:${at.previewPort}`;
  const get = (port: number, hostName: string, target: string, headers: Record<string, string> = {}) =>
    new Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }>((resolve, reject) => {
      http
        .get({ host: "127.0.0.1", port, path: target, headers: { host: hostName, ...headers } }, (res) => {
          let body = "";
          res.setEncoding("utf8").on("data", (c: string) => (body += c));
          res.on("end", () => resolve({ status: res.statusCode!, body, headers: res.headers }));
        })
        .on("error", reject);
    });

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "tandem-preview-peers-"));
    writeFileSync(path.join(dir, "dev.js"), DEV_SERVER);
    sandbox = createSandbox({
      host: { mode: "bwrap", masks: [], perProjectUid: true, limits: null },
      policies: { get: async () => ({ policy: "off", allowHosts: [] }) },
    });
    shell = createShellSession({ workspace: { root: dir }, projectId, sessionId: "dev", sandbox });
    a = await instance(async () => ({ local: true }), true);
    b = await instance(
      async () => ({ local: false, url: `http://127.0.0.1:${(a.main.address() as AddressInfo).port}` }),
      false,
    );
  });

  afterAll(async () => {
    for (const close of closing) await close();
    await shell?.dispose();
    await sandbox?.networks?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it.runIf(canSwitchIdentity())(
    "serves a member on B from A's workspace, HTTP and hot reload alike, and nobody else",
    async () => {
      await shell.start("node dev.js");
      await until(
        async () => (await sandbox.networks!.ports(dir)).some((p) => p.port === 5173),
        "the dev server",
        15_000,
      );
      // Entered on B, with a link A's IDE made (both instances sign with the server's secret).
      const token = createPreviewAccess(SECRET).entryToken(projectId, 5173, "member", LOGIN);
      const entered = await get(b.previewPort, hostOn(b), `${PREVIEW_ENTER_PATH}?t=${encodeURIComponent(token)}`);
      expect(entered.status).toBe(302);
      const cookie = String(entered.headers["set-cookie"]).split(";")[0]!;

      const answer = await get(b.previewPort, hostOn(b), "/app?x=1", { cookie, "x-tandem-client-ip": "203.0.113.9" });
      expect(answer.status).toBe(200);
      const seen = JSON.parse(answer.body) as { url: string; host: string; headers: string[] };
      expect(seen).toMatchObject({ url: "/app?x=1", host: "localhost:5173" });
      // Neither the peers' signature nor anything else of Tandem's reaches the app.
      expect(seen.headers.filter((name) => name.startsWith("x-tandem"))).toEqual([]);
      expect(seen.headers).not.toContain("cookie");

      const message = await new Promise<string>((resolve, reject) => {
        const ws = new WebSocket(`ws://127.0.0.1:${b.previewPort}/hmr`, {
          headers: { host: hostOn(b), cookie, origin: `http://${hostOn(b)}` },
        });
        ws.on("message", (data) => {
          resolve(String(data));
          ws.close();
        });
        ws.on("error", reject);
      });
      expect(JSON.parse(message)).toEqual({ host: "localhost:5173" });

      // A stranger is refused on B, before anything is forwarded; a member who left, on A too.
      expect((await get(b.previewPort, hostOn(b), "/")).status).toBe(403);
      members.delete("member");
      expect((await get(b.previewPort, hostOn(b), "/", { cookie })).status).toBe(403);
      members.add("member");
    },
    60_000,
  );

  it.runIf(canSwitchIdentity())(
    "A's main port serves a preview only to a request its peer signed",
    async () => {
      await until(
        async () => (await sandbox.networks!.ports(dir)).some((p) => p.port === 5173),
        "the dev server",
        15_000,
      );
      const mainPort = (a.main.address() as AddressInfo).port;
      const peerAccess = createPreviewAccess(SECRET);
      const session = peerAccess.redeem(peerAccess.entryToken(projectId, 5173, "member", LOGIN), projectId, 5173)!;
      const cookie = `${PREVIEW_COOKIE}=${session.cookie}`;
      // Made up, signed with another secret, or a signature for another URL or project: refused, never the app.
      const host = hostOn(b);
      for (const header of [
        "1.2.3.x",
        forwardingHeader(forwardingKey("not the secret"), { method: "GET", host, url: "/" }, "127.0.0.1", 1),
        forwardingHeader(forwardingKey(SECRET), { method: "GET", host, url: "/other" }, "127.0.0.1", 1),
        forwardingHeader(
          forwardingKey(SECRET),
          { method: "GET", host: host.replace(projectId, randomUUID()), url: "/" },
          "127.0.0.1",
          1,
        ),
      ]) {
        const refused = await get(mainPort, hostOn(b), "/", { cookie, [FORWARDED_HEADER]: header });
        expect(refused.status).toBe(403);
        expect(refused.body).not.toContain("localhost:5173");
      }
      // Without the header the main port is the IDE's, whatever the Host says.
      expect((await get(mainPort, hostOn(b), "/", { cookie })).body).toBe("the IDE");
      // A signed request without a preview session is still a stranger's.
      const signed = forwardingHeader(forwardingKey(SECRET), { method: "GET", host, url: "/" }, "127.0.0.1", 1);
      expect((await get(mainPort, hostOn(b), "/", { [FORWARDED_HEADER]: signed })).status).toBe(403);
    },
    30_000,
  );
});
