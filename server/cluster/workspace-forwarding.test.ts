import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, expect, it, vi } from "vitest";
import { WebSocket, WebSocketServer } from "ws";
import { CLIENT_IP_HEADER } from "@/server/auth/request-origin";
import { databaseForFile } from "@/server/test/database";
import { until } from "@/server/test/until";
import {
  createWorkspaceForwarding,
  FORWARDED_HEADER,
  spendOnDatabase,
  type WorkspaceForwarding,
} from "./workspace-forwarding";

// An attacker on the instances' network captures what one instance forwards to another, signed
// with the cluster's secret, and replays it to the instance it was meant for, changed: another
// Host (a preview host names the project and port served), another URL or method, a later time,
// or unchanged a second time, or unchanged to another instance of the cluster (C), which shares
// A's database. The instance that forwards (B) is the real forwarding handler; the ones receiving
// (A, C) tell a signed request apart with the real handler too, as start-server.ts does.

const SECRET = "forwarding replay test secret";
const project = randomUUID();
const otherProject = randomUUID();

type Seen = { method: string; url: string; host: string; header: string };
type Instance = { forwarding: WorkspaceForwarding; server: http.Server; port: number };

const closing: Array<() => unknown> = [];
/** What the attacker captured between B and A, newest last. */
const captured: Seen[] = [];
let a: Instance;
let b: Instance;
let c: Instance;
const database = databaseForFile();

async function listen(server: http.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closing.push(() => new Promise((resolve) => server.close(resolve)));
  return (server.address() as AddressInfo).port;
}

function forwardingTo(owner: () => string | null): WorkspaceForwarding {
  const forwarding = createWorkspaceForwarding({
    secret: SECRET,
    host: {
      owner: async () => {
        const url = owner();
        return url ? { local: false, url } : { local: true };
      },
      hold: async () => {},
      start: () => {},
      release: async () => {},
    },
    mayRead: async () => true,
    spend: spendOnDatabase(database.db),
  });
  closing.push(() => forwarding.close());
  return forwarding;
}

beforeAll(async () => {
  // The attacker's tap: it keeps what B sends and passes nothing on.
  const tap = http.createServer((req, res) => {
    captured.push(seen(req));
    res.writeHead(200).end("captured");
  });
  tap.on("upgrade", (req, socket) => {
    captured.push(seen(req));
    socket.destroy();
  });
  const tapPort = await listen(tap);

  a = await receiving();
  c = await receiving();

  // B: where the person's browser lands; it forwards previews, their sockets and live tRPC calls.
  const bForwarding = forwardingTo(() => `http://127.0.0.1:${tapPort}`);
  const bServer = http.createServer((req, res) => {
    req.headers[CLIENT_IP_HEADER] = "203.0.113.7";
    const direct = { kind: "direct" } as const;
    const forwarded = req.url?.startsWith("/api/trpc/")
      ? bForwarding.forwardTrpc(req, res, direct)
      : bForwarding.forwardPreview(req, res, project, direct);
    void forwarded.then((done) => done || res.writeHead(500).end());
  });
  bServer.on("upgrade", (req, socket, head) => {
    req.headers[CLIENT_IP_HEADER] = "203.0.113.7";
    void bForwarding.forwardPreviewUpgrade(req, socket, head, project, { kind: "direct" });
  });
  b = { forwarding: bForwarding, server: bServer, port: await listen(bServer) };
});

/** An instance holding projects (A, C): it answers with who it takes a request's sender to be. */
async function receiving(): Promise<Instance> {
  const forwarding = forwardingTo(() => null);
  const server = http.createServer(async (req, res) => {
    const arrival = await forwarding.arrival(req);
    res.writeHead(arrival.kind === "forwarded" ? 200 : 403, { "content-type": "application/json" });
    res.end(JSON.stringify(arrival));
  });
  const wss = new WebSocketServer({ noServer: true });
  closing.push(() => wss.close());
  server.on("upgrade", async (req, socket, head) => {
    const arrival = await forwarding.arrival(req);
    if (arrival.kind !== "forwarded")
      return void socket.end("HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
    wss.handleUpgrade(req, socket, head, (ws) => ws.send(JSON.stringify(arrival)));
  });
  return { forwarding, server, port: await listen(server) };
}

afterAll(async () => {
  for (const close of closing.reverse()) await close();
});

afterEach(() => {
  vi.useRealTimers();
});

function seen(req: http.IncomingMessage): Seen {
  return {
    method: req.method ?? "",
    url: req.url ?? "",
    host: req.headers.host ?? "",
    header: String(req.headers[FORWARDED_HEADER]),
  };
}

function send(port: number, request: { method: string; url: string; host: string; header?: string }) {
  return new Promise<number>((resolve, reject) => {
    const headers: http.OutgoingHttpHeaders = { host: request.host };
    if (request.header !== undefined) headers[FORWARDED_HEADER] = request.header;
    http
      .request({ host: "127.0.0.1", port, method: request.method, path: request.url, headers }, (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      })
      .on("error", reject)
      .end();
  });
}

/** What one request B forwards looks like on the wire: the attacker's capture of it. */
async function capture(request: { method: string; url: string; host: string }): Promise<Seen> {
  const before = captured.length;
  await send(b.port, request);
  expect(captured).toHaveLength(before + 1);
  const taken = captured.at(-1)!;
  expect(taken).toMatchObject(request);
  return taken;
}

function upgrade(port: number, request: { url: string; host: string; header: string }) {
  return new Promise<number>((resolve) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}${request.url}`, {
      headers: { host: request.host, [FORWARDED_HEADER]: request.header },
    });
    ws.on("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
    ws.on("message", () => {
      resolve(101);
      ws.close();
    });
    ws.on("error", () => {});
  });
}

const previewHost = `5173-${project}.localhost:3100`;

it("refuses a signed preview request replayed for another project, port, URL, method or time, and refuses it twice", async () => {
  const genuine = await capture({ method: "GET", url: "/app.js?v=1", host: previewHost });
  const replays = [
    { ...genuine, host: `5173-${otherProject}.localhost:3100` },
    { ...genuine, host: `6006-${project}.localhost:3100` },
    { ...genuine, host: "tandem.example.com" },
    { ...genuine, url: "/admin" },
    { ...genuine, method: "POST" },
    // The signature moved onto another time: every part of the header is bound.
    { ...genuine, header: genuine.header.replace(/^\d+/, (at) => String(Number(at) + 1)) },
  ];
  for (const replay of replays) expect(await send(a.port, replay), JSON.stringify(replay)).toBe(403);
  // The capture itself was genuine: delivered once, it is served. A second time it is refused.
  expect(await send(a.port, genuine)).toBe(200);
  expect(await send(a.port, genuine)).toBe(403);
});

it("refuses a signed preview request replayed after its minute", async () => {
  const genuine = await capture({ method: "GET", url: "/", host: previewHost });
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(Date.now() + 61_000);
  expect(await send(a.port, genuine)).toBe(403);
});

it("refuses a signed preview socket upgrade replayed for another project, and twice", async () => {
  const before = captured.length;
  void upgrade(b.port, { url: "/hmr", host: previewHost, header: "" });
  await until(() => captured.length > before, "the upgrade B forwards", 5_000);
  const genuine = captured.at(-1)!;
  expect(genuine).toMatchObject({ method: "GET", url: "/hmr", host: previewHost });
  expect(await upgrade(a.port, { ...genuine, host: `5173-${otherProject}.localhost:3100` })).toBe(403);
  expect(await upgrade(a.port, { ...genuine, url: "/other" })).toBe(403);
  expect(await upgrade(a.port, genuine)).toBe(101);
  expect(await upgrade(a.port, genuine)).toBe(403);
});

it("refuses a signed tRPC call replayed for another project or Host", async () => {
  const input = (projectId: string) => encodeURIComponent(JSON.stringify({ json: { projectId } }));
  const genuine = await capture({ method: "GET", url: `/api/trpc/terminal.list?input=${input(project)}`, host: "a" });
  expect(await send(a.port, { ...genuine, url: `/api/trpc/terminal.list?input=${input(otherProject)}` })).toBe(403);
  expect(await send(a.port, { ...genuine, host: "b" })).toBe(403);
  expect(await send(a.port, genuine)).toBe(200);
  expect(await send(a.port, genuine)).toBe(403);
});

it("refuses a signed request served by one instance when it is replayed to another instance of the cluster", async () => {
  const genuine = await capture({ method: "GET", url: "/app.js?v=2", host: previewHost });
  expect(await send(a.port, genuine)).toBe(200);
  expect(await send(c.port, genuine)).toBe(403);

  const before = captured.length;
  void upgrade(b.port, { url: "/hmr", host: previewHost, header: "" });
  await until(() => captured.length > before, "the upgrade B forwards", 5_000);
  const socket = captured.at(-1)!;
  expect(await upgrade(a.port, socket)).toBe(101);
  expect(await upgrade(c.port, socket)).toBe(403);
});

it("refuses a served signature at an instance whose clock is a minute behind, after one two minutes ahead tidied up", async () => {
  const genuine = await capture({ method: "GET", url: "/app.js?v=3", host: previewHost });
  expect(await send(a.port, genuine)).toBe(200);
  const real = Date.now();
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(real + 120_000);
  expect(await send(a.port, await capture({ method: "GET", url: "/later", host: previewHost }))).toBe(200);
  vi.setSystemTime(real - 50_000);
  expect(await send(c.port, genuine)).toBe(403);
});
