import { randomUUID } from "node:crypto";
import { readdirSync } from "node:fs";
import type http from "node:http";
import net, { type AddressInfo } from "node:net";
import { afterEach, expect, it } from "vitest";
import { until } from "@/server/test/until";
import { createPreviewAccess, spendInMemory } from "./preview-access";
import { PREVIEW_COOKIE } from "./preview-headers";
import { frontedPreviews } from "./preview-front";
import { createPreviewHandlers } from "./preview-server";
import { POOL_CONNECTIONS } from "./upstream";
import { SOCKET_LIMITS } from "./socket-places";

// What one preview session may hold of the server, as an attacker holding a public link (or a
// member's own app and page) would try it: connections dropped while their admission is asked,
// and thousands of WebSockets, each of which costs the server two descriptors while it lasts, or
// handshakes the app takes and never answers.

const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

const listening = async (server: net.Server | http.Server) => {
  closers.push(() => server.close());
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
};

/** A proxy in front of `app`, for public links of one project's port 5173, admitting as `admits` says. */
async function proxyFor(app: net.Server, admits: () => Promise<boolean>, handshakeMs?: number) {
  const projectId = randomUUID();
  const access = createPreviewAccess("admission test secret");
  const appPort = await listening(app);
  let holds = 0;
  const handlers = createPreviewHandlers({
    access,
    domain: "localhost",
    secure: false,
    spendEntry: spendInMemory(),
    admits,
    link: async () => null,
    ...(handshakeMs ? { handshakeMs } : {}),
    onAccessEnd: () => {
      holds++;
      return () => holds--;
    },
    connect: () =>
      new Promise<net.Socket>((resolve, reject) => {
        const socket = net.connect(appPort, "127.0.0.1", () => resolve(socket)).once("error", reject);
      }),
  });
  const { front } = frontedPreviews(handlers);
  closers.push(() => front.closeAll());
  const proxyPort = await listening(front.server);
  closers.push(() => handlers.closeSockets());
  const host = `5173-${projectId}.localhost:${proxyPort}`;
  return {
    proxyPort,
    holds: () => holds,
    /** The session cookie of a public link of its own. */
    linkCookie: () =>
      `${PREVIEW_COOKIE}=${access.linkSession({ id: randomUUID(), projectId, port: 5173, expiresAt: new Date(Date.now() + 60_000) })}`,
    get: (cookie: string) => `GET / HTTP/1.1\r\nHost: ${host}\r\nCookie: ${cookie}\r\n\r\n`,
    upgrade: (cookie: string) =>
      `GET /hmr HTTP/1.1\r\nHost: ${host}\r\nCookie: ${cookie}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n` +
      "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
  };
}

it("lets go of what a connection dropped during its admission held", async () => {
  // The admission answers only once the test lets it: every connection is gone by then.
  const asked: (() => void)[] = [];
  const proxy = await proxyFor(
    net.createServer((socket) => socket.destroy()),
    () => new Promise<boolean>((resolve) => asked.push(() => resolve(true))),
  );
  const cookie = proxy.linkCookie();
  const dropped = (head: string) =>
    new Promise<void>((resolve) => {
      const socket = net.connect(proxy.proxyPort, "127.0.0.1", () => socket.write(head));
      socket.on("error", () => {});
      socket.on("close", () => resolve());
      // Gone the moment the proxy asks whether it may come in.
      const count = asked.length;
      void until(async () => asked.length > count, "the admission asked", 5_000).then(() => socket.destroy());
    });
  for (let i = 0; i < 10; i++) {
    await dropped(proxy.get(cookie));
    await dropped(proxy.upgrade(cookie));
  }
  expect(asked).toHaveLength(20);
  for (const answer of asked) answer();
  await until(async () => proxy.holds() === 0, "every hold released", 2_000);
});

it("holds a preview session's and a project's WebSockets to a number, and frees a place as one closes", async () => {
  // An app that takes every upgrade (as a dev server's hot reload does) and keeps it open.
  const app = net.createServer((socket) => {
    socket.on("error", () => {});
    socket.once("data", () =>
      socket.write("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n"),
    );
  });
  const proxy = await proxyFor(app, async () => true);
  const open: net.Socket[] = [];
  closers.push(() => {
    for (const socket of open) socket.destroy();
  });
  /** The status line the proxy answers an upgrade under `cookie` with; the socket stays open. */
  const upgrade = (cookie: string) =>
    new Promise<string>((resolve, reject) => {
      const socket = net.connect(proxy.proxyPort, "127.0.0.1", () => socket.write(proxy.upgrade(cookie)));
      open.push(socket);
      socket.once("error", reject).once("data", (data) => resolve(data.toString("latin1").split("\r\n")[0]!));
    });
  const session = proxy.linkCookie();
  for (let i = 0; i < SOCKET_LIMITS.session; i++) expect(await upgrade(session)).toContain("101");
  expect(await upgrade(session)).toBe("HTTP/1.1 429 Too Many Requests");
  // Another session of the project is not held back by this one's.
  expect(await upgrade(proxy.linkCookie())).toContain("101");
  // One closed: its place is free again.
  open[0]!.destroy();
  await until(async () => (await upgrade(session)).includes("101"), "a place freed", 5_000);

  // The project as a whole: more sessions, until its own bound.
  let made = SOCKET_LIMITS.session + 1;
  while (made < SOCKET_LIMITS.project) {
    const another = proxy.linkCookie();
    for (let i = 0; i < SOCKET_LIMITS.session && made < SOCKET_LIMITS.project; i++, made++)
      expect(await upgrade(another)).toContain("101");
  }
  expect(await upgrade(proxy.linkCookie())).toBe("HTTP/1.1 429 Too Many Requests");
});

it("holds a session's connections into the workspace to its pool's number, however many connections its browser opens", async () => {
  // An app that answers every request and counts the connections it is given.
  let connections = 0;
  const app = net.createServer((socket) => {
    connections++;
    socket.on("error", () => {});
    socket.on("data", () => socket.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"));
  });
  const proxy = await proxyFor(app, async () => true);
  const open: net.Socket[] = [];
  closers.push(() => {
    for (const socket of open) socket.destroy();
  });
  /** One kept browser connection's first answer. */
  const ask = (cookie: string) =>
    new Promise<string>((resolve, reject) => {
      const socket = net.connect(proxy.proxyPort, "127.0.0.1", () => socket.write(proxy.get(cookie)));
      open.push(socket);
      let answer = "";
      socket.once("error", reject).on("data", (data) => {
        answer += data.toString("latin1");
        if (answer.endsWith("ok")) resolve(answer.split("\r\n")[0]!);
      });
    });
  const session = proxy.linkCookie();
  const answers = await Promise.all(Array.from({ length: POOL_CONNECTIONS * 2 + 16 }, () => ask(session)));
  // Every one answered: the front's own connections into the workspace up to the bound, then the session's pool's.
  expect(answers.every((status) => status === "HTTP/1.1 200 OK")).toBe(true);
  expect(connections).toBeLessThanOrEqual(POOL_CONNECTIONS * 2);
  const before = connections;
  for (let i = 0; i < 16; i++) await ask(session);
  expect(connections).toBe(before);
});

it("answers a handshake the app never answers with 504 in time, and lets go of its place, hold and descriptors", {
  timeout: 30_000,
}, async () => {
  // A dev server's port that takes every connection, reads the handshake and says nothing: each
  // upgrade would hold the browser's connection, the one into the workspace and a place for good.
  const taken = new Set<net.Socket>();
  const app = net.createServer((socket) => {
    taken.add(socket.on("error", () => {}).on("close", () => taken.delete(socket)));
    socket.resume();
  });
  const handshakeMs = 500;
  const proxy = await proxyFor(app, async () => true, handshakeMs);
  const openFds = () => readdirSync("/proc/self/fd").length;
  /** The proxy's answer to an upgrade, and how long it took; resolves once the proxy closed the connection. */
  const upgrade = (cookie: string) =>
    new Promise<{ status: string; ms: number }>((resolve, reject) => {
      const started = Date.now();
      let answer = "";
      const socket = net.connect(proxy.proxyPort, "127.0.0.1", () => socket.write(proxy.upgrade(cookie)));
      socket.on("data", (data) => (answer += data.toString("latin1")));
      socket
        .once("error", reject)
        .once("close", () => resolve({ status: answer.split("\r\n")[0]!, ms: Date.now() - started }));
    });
  const session = proxy.linkCookie();
  // Warmed once: the first relay-free upgrade loads what the proxy keeps for good.
  await upgrade(session);
  const before = openFds();
  // The session's every place at once, then one more: without the bound in time the last is 429.
  const answers = await Promise.all(Array.from({ length: SOCKET_LIMITS.session }, () => upgrade(session)));
  for (const { status, ms } of answers) {
    expect(status).toBe("HTTP/1.1 504 Gateway Timeout");
    expect(ms).toBeLessThan(handshakeMs + 5_000);
  }
  expect((await upgrade(session)).status).toBe("HTTP/1.1 504 Gateway Timeout");
  await until(async () => proxy.holds() === 0, "every hold released", 2_000);
  await until(async () => taken.size === 0, "every connection into the app closed", 2_000);
  await until(async () => openFds() <= before, `descriptors back to ${before} (now ${openFds()})`, 5_000);
});
