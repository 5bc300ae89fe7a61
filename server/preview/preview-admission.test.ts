import { randomUUID } from "node:crypto";
import http from "node:http";
import net, { type AddressInfo } from "node:net";
import { afterEach, expect, it } from "vitest";
import { until } from "@/server/test/until";
import { createPreviewAccess, spendInMemory } from "./preview-access";
import { PREVIEW_COOKIE } from "./preview-headers";
import { createPreviewHandlers } from "./preview-server";

// A connection dropped while its admission is asked (a database read for a public link's session,
// or a person's first request in a few seconds): the hold taken for it, with the grant's listener
// of access changes, must go with it. An attacker holding a public link opens and drops
// connections in a loop; each one left behind kept its socket and request in memory for good.

const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

const listening = async (server: net.Server | http.Server) => {
  closers.push(() => server.close());
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
};

it("lets go of what a connection dropped during its admission held", async () => {
  const projectId = randomUUID();
  const access = createPreviewAccess("admission test secret");
  const link = { id: "link", projectId, port: 5173, expiresAt: new Date(Date.now() + 60_000) };
  const cookie = `${PREVIEW_COOKIE}=${access.linkSession(link)}`;
  // The admission answers only once the test lets it: every connection is gone by then.
  const asked: (() => void)[] = [];
  let holds = 0;
  const app = net.createServer((socket) => socket.destroy());
  const appPort = await listening(app);
  const handlers = createPreviewHandlers({
    access,
    domain: "localhost",
    secure: false,
    spendEntry: spendInMemory(),
    admits: () => new Promise<boolean>((resolve) => asked.push(() => resolve(true))),
    link: async () => null,
    onAccessEnd: () => {
      holds++;
      return () => holds--;
    },
    connect: () =>
      new Promise<net.Socket>((resolve, reject) => {
        const socket = net.connect(appPort, "127.0.0.1", () => resolve(socket)).once("error", reject);
      }),
  });
  const proxy = http.createServer((req, res) => void handlers.request(req, res));
  proxy.on("upgrade", (req, socket, head) => void handlers.upgrade(req, socket, head));
  const proxyPort = await listening(proxy);

  const host = `5173-${projectId}.localhost:${proxyPort}`;
  const dropped = (head: string) =>
    new Promise<void>((resolve) => {
      const socket = net.connect(proxyPort, "127.0.0.1", () => socket.write(head));
      socket.on("error", () => {});
      socket.on("close", () => resolve());
      // Gone the moment the proxy asks whether it may come in.
      const count = asked.length;
      void until(async () => asked.length > count, "the admission asked", 5_000).then(() => socket.destroy());
    });
  for (let i = 0; i < 10; i++) {
    await dropped(`GET / HTTP/1.1\r\nHost: ${host}\r\nCookie: ${cookie}\r\n\r\n`);
    await dropped(
      `GET /hmr HTTP/1.1\r\nHost: ${host}\r\nCookie: ${cookie}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n` +
        "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
    );
  }
  expect(asked).toHaveLength(20);
  for (const answer of asked) answer();
  await until(async () => holds === 0, "every hold released", 2_000);
});
