import { createHash, randomBytes } from "node:crypto";
import { readdirSync } from "node:fs";
import net from "node:net";
import tls from "node:tls";
import { generateCACertificate } from "mockttp";
import { afterEach, describe, expect, it } from "vitest";
import { until } from "@/server/test/until";
import { relaySockets, type SocketRelay } from "./socket-relay";

// The relay after a WebSocket's handshake, on real loopback sockets: a "browser" connects to a
// relay server that takes its connection and one to an "app" server, as the preview proxy does
// once the dev server answered. The native relay and Node's pipe (its fallback) must behave alike.

type Pair = {
  browser: net.Socket;
  app: net.Socket;
  relay: SocketRelay;
  ended: Promise<void>;
  isEnded(): boolean;
};

const servers: net.Server[] = [];
const sockets: net.Socket[] = [];
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.destroy();
  for (const server of servers.splice(0)) server.close();
});

const listen = async (server: net.Server) => {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as net.AddressInfo).port;
};
const connected = (port: number) =>
  new Promise<net.Socket>((resolve, reject) => {
    // Half-open allowed, as the http server's sockets are: Node's pipe can then pass a half-close on.
    const socket = net.connect({ port, host: "127.0.0.1", allowHalfOpen: true }, () => resolve(socket));
    socket.once("error", reject).on("error", () => {});
    sockets.push(socket);
  });
const accepted = (server: net.Server) =>
  new Promise<net.Socket>((resolve) =>
    server.once("connection", (socket: net.Socket) => {
      // Writing to a connection the relay closed fails: the tests look at what arrived.
      socket.on("error", () => {});
      sockets.push(socket);
      resolve(socket);
    }),
  );

/** Reads `socket` until `length` bytes came (or it ended), returning them. */
const readBytes = (socket: net.Socket, length: number) =>
  new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let got = 0;
    const done = () => {
      socket.off("data", data).off("end", done).off("error", reject);
      resolve(Buffer.concat(chunks));
    };
    const data = (chunk: Buffer) => {
      chunks.push(chunk);
      got += chunk.length;
      if (got >= length) done();
    };
    socket.on("data", data).once("end", done).once("error", reject);
  });
/** The connection's end: a FIN, or a reset (closing with unread bytes sends one). */
const gone = (socket: net.Socket) =>
  new Promise<void>((resolve) =>
    socket
      .once("end", resolve)
      .once("close", () => resolve())
      .once("error", () => resolve()),
  );
const ends = (socket: net.Socket) => new Promise<void>((resolve) => socket.once("end", resolve));

/**
 * A browser and an app joined by a relay. `before` runs on the relay's two sockets (paused, as
 * the proxy leaves them) before they are handed over.
 */
async function join(
  options: { native?: boolean },
  first = { toClient: Buffer.alloc(0), toUpstream: Buffer.alloc(0) },
  before?: (client: net.Socket, upstream: net.Socket, browser: net.Socket, app: net.Socket) => Promise<void>,
): Promise<Pair> {
  const appServer = net.createServer({ allowHalfOpen: true });
  const relayServer = net.createServer({ allowHalfOpen: true });
  const appPort = await listen(appServer);
  const relayPort = await listen(relayServer);
  const client = accepted(relayServer);
  const browser = await connected(relayPort);
  browser.setNoDelay(true);
  const clientSocket = await client;
  clientSocket.pause();
  const app = accepted(appServer);
  const upstream = await connected(appPort);
  upstream.pause();
  const appSocket = await app;
  await before?.(clientSocket, upstream, browser, appSocket);
  let isEnded = false;
  let resolveEnded = () => {};
  const ended = new Promise<void>((resolve) => (resolveEnded = resolve));
  const relay = relaySockets(
    clientSocket,
    upstream,
    first,
    () => {
      expect(isEnded).toBe(false);
      isEnded = true;
      resolveEnded();
    },
    options,
  );
  return { browser, app: appSocket, relay, ended, isEnded: () => isEnded };
}

const sha = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");
const openFds = () => readdirSync("/proc/self/fd").length;

describe.each([
  ["the native relay", { native: true }],
  ["Node's pipe", { native: false }],
] as const)("%s", (_name, options) => {
  it("writes the bytes Node already had first, then relays both ways in order", async () => {
    const pair = await join(
      options,
      { toClient: Buffer.from("HTTP/1.1 101 ok\r\n\r\n"), toUpstream: Buffer.from("early frame|") },
      async (client, upstream, browser, app) => {
        // Read by Node before the hand-over, not yet passed on.
        browser.write("sent during the handshake|");
        app.write("the app's first frame|");
        await until(() => client.readableLength > 0 && upstream.readableLength > 0, "Node to buffer both", 5_000);
      },
    );
    expect(pair.relay.native).toBe(options.native);
    const toBrowser = "HTTP/1.1 101 ok\r\n\r\nthe app's first frame|";
    expect((await readBytes(pair.browser, toBrowser.length)).toString()).toBe(toBrowser);
    const toApp = "early frame|sent during the handshake|";
    expect((await readBytes(pair.app, toApp.length)).toString()).toBe(toApp);
    for (let i = 0; i < 50; i++) {
      const message = `message ${i}`;
      const arrived = readBytes(pair.app, message.length);
      pair.browser.write(message);
      expect((await arrived).toString()).toBe(message);
      const answer = readBytes(pair.browser, message.length + 1);
      pair.app.write(`${message}!`);
      expect((await answer).toString()).toBe(`${message}!`);
    }
    expect(pair.isEnded()).toBe(false);
  });

  it("carries an 8 MiB flood to a slow reader whole and in order", async () => {
    const pair = await join(options);
    const flood = randomBytes(8 * 1024 * 1024);
    pair.app.write(flood);
    // The browser reads a chunk at a time, with a pause after each.
    const chunks: Buffer[] = [];
    let got = 0;
    await new Promise<void>((resolve) => {
      pair.browser.on("data", (chunk: Buffer) => {
        chunks.push(chunk);
        got += chunk.length;
        pair.browser.pause();
        if (got >= flood.length) return resolve();
        setTimeout(() => pair.browser.resume(), 1);
      });
    });
    expect(got).toBe(flood.length);
    expect(sha(Buffer.concat(chunks))).toBe(sha(flood));
  }, 60_000);

  it("holds back a sender whose reader reads nothing, and loses nothing once it reads", async () => {
    const pair = await join(options);
    pair.browser.pause();
    const flood = randomBytes(64 * 1024 * 1024);
    pair.app.write(flood);
    // What the kernel's buffers and the relay take in, once the flow stopped: the rest still
    // waits in the app's socket (the relay reads no more than it can pass on).
    let last = -1;
    await until(
      async () => {
        const now = pair.app.writableLength;
        await new Promise((resolve) => setTimeout(resolve, 300));
        const settled = now === last && now === pair.app.writableLength;
        last = pair.app.writableLength;
        return settled;
      },
      "the flood to stop",
      30_000,
    );
    expect(pair.app.writableLength).toBeGreaterThan(32 * 1024 * 1024);
    const all = readBytes(pair.browser, flood.length);
    pair.browser.resume();
    expect(sha(await all)).toBe(sha(flood));
  }, 60_000);

  it("passes a half-close on both ways, and ends once both sides finished", async () => {
    const pair = await join(options);
    // The browser finishes first: the app sees the end and may still answer.
    const appEnded = ends(pair.app);
    pair.browser.end("last words");
    expect((await readBytes(pair.app, 10)).toString()).toBe("last words");
    await appEnded;
    const answer = readBytes(pair.browser, 5);
    pair.app.write("still");
    expect((await answer).toString()).toBe("still");
    expect(pair.isEnded()).toBe(false);
    const browserEnded = ends(pair.browser);
    pair.app.end();
    await browserEnded;
    await pair.ended;
  });

  it("passes on the app's half-close first", async () => {
    const pair = await join(options);
    const browserEnded = ends(pair.browser);
    pair.app.end("bye");
    expect((await readBytes(pair.browser, 3)).toString()).toBe("bye");
    await browserEnded;
    const answer = readBytes(pair.app, 2);
    pair.browser.write("ok");
    expect((await answer).toString()).toBe("ok");
    pair.browser.end();
    await pair.ended;
  });

  it("closes the other side when one side is gone", async () => {
    const pair = await join(options);
    const appEnded = ends(pair.app);
    pair.browser.resetAndDestroy();
    await appEnded;
    await pair.ended;
    const other = await join(options);
    const browserEnded = ends(other.browser);
    other.app.resetAndDestroy();
    await browserEnded;
    await other.ended;
  });

  it("closes both connections at once when told to (a session that ended)", async () => {
    const pair = await join(options);
    const closed = Promise.all([gone(pair.browser), gone(pair.app)]);
    // Open and busy: the app streams while the browser reads.
    pair.browser.resume();
    pair.app.write(Buffer.alloc(64 * 1024));
    const from = Date.now();
    pair.relay.end();
    await closed;
    await pair.ended;
    expect(Date.now() - from).toBeLessThan(1_000);
    pair.relay.end();
  });

  it("survives ends racing floods both ways (told to, reset, closed) and leaves nothing open", async () => {
    const warm = await join(options);
    warm.relay.end();
    await warm.ended;
    for (const socket of sockets.splice(0)) socket.destroy();
    const before = openFds();
    for (let round = 0; round < 3; round++) {
      const pairs = await Promise.all(Array.from({ length: 12 }, () => join(options)));
      await Promise.all(
        pairs.map(async (pair, i) => {
          // Both sides write as fast as they can and read nothing: the relay holds back bytes
          // either way when it is ended.
          pair.browser.pause();
          pair.app.pause();
          pair.browser.write(randomBytes(2 * 1024 * 1024));
          pair.app.write(randomBytes(2 * 1024 * 1024));
          await new Promise((resolve) => setTimeout(resolve, i * 3));
          if (i % 4 === 0) pair.relay.end();
          else if (i % 4 === 1) pair.browser.resetAndDestroy();
          else if (i % 4 === 2) pair.app.resetAndDestroy();
          else {
            pair.relay.end();
            pair.relay.end();
            pair.app.destroy();
          }
          await pair.ended;
        }),
      );
      for (const socket of sockets.splice(0)) socket.destroy();
      for (const server of servers.splice(0)) server.close();
    }
    await until(() => openFds() <= before, `descriptors back to ${before} (now ${openFds()})`, 10_000);
    // And it still relays.
    const pair = await join(options);
    const arrived = readBytes(pair.app, 5);
    pair.browser.write("alive");
    expect((await arrived).toString()).toBe("alive");
  }, 60_000);

  it("leaves no descriptor open after many relays", async () => {
    // The first relay starts the thread, with its own two descriptors for good.
    const warm = await join(options);
    warm.relay.end();
    await warm.ended;
    for (const socket of sockets.splice(0)) socket.destroy();
    await until(() => sockets.every((s) => s.destroyed), "the warm-up sockets to close", 5_000);
    const before = openFds();
    for (let round = 0; round < 4; round++) {
      const pairs = await Promise.all(Array.from({ length: 10 }, () => join(options)));
      await Promise.all(
        pairs.map(async (pair, i) => {
          const arrived = readBytes(pair.app, 2);
          pair.browser.write("hi");
          await arrived;
          // Each way of ending: told to, either side closing, both finishing.
          if (i % 3 === 0) pair.relay.end();
          else if (i % 3 === 1) pair.app.resetAndDestroy();
          else {
            pair.browser.end();
            pair.app.end();
          }
          await pair.ended;
        }),
      );
      for (const socket of sockets.splice(0)) socket.destroy();
      for (const server of servers.splice(0)) server.close();
    }
    await until(() => openFds() <= before, `descriptors back to ${before} (now ${openFds()})`, 10_000);
  }, 60_000);
});

describe("the relay's choice", () => {
  it("keeps Node's pipe for a TLS client", async () => {
    const { key, cert } = await generateCACertificate();
    const appServer = net.createServer();
    const appPort = await listen(appServer);
    const tlsServer = tls.createServer({ key, cert });
    const tlsPort = await listen(tlsServer);
    const client = new Promise<tls.TLSSocket>((resolve) => tlsServer.once("secureConnection", resolve));
    const browser = tls.connect({ port: tlsPort, host: "127.0.0.1", rejectUnauthorized: false });
    sockets.push(browser);
    const clientSocket = await client;
    sockets.push(clientSocket);
    clientSocket.pause();
    const app = accepted(appServer);
    const upstream = await connected(appPort);
    const appSocket = await app;
    const relay = relaySockets(
      clientSocket,
      upstream,
      { toClient: Buffer.alloc(0), toUpstream: Buffer.alloc(0) },
      () => {},
    );
    expect(relay.native).toBe(false);
    const arrived = readBytes(appSocket, 5);
    browser.write("hello");
    expect((await arrived).toString()).toBe("hello");
    const back = new Promise<string>((resolve) => browser.once("data", (chunk: Buffer) => resolve(chunk.toString())));
    appSocket.write("world");
    expect(await back).toBe("world");
  });

  it("keeps Node's pipe when Node still has bytes to write", async () => {
    let corked: net.Socket | undefined;
    const pair = await join({ native: true }, undefined, async (_client, upstream) => {
      // Corked: the write waits in Node's queue.
      upstream.cork();
      upstream.write("queued|");
      corked = upstream;
    });
    expect(pair.relay.native).toBe(false);
    const arrived = readBytes(pair.app, 12);
    pair.browser.write("after");
    corked!.uncork();
    expect((await arrived).toString()).toBe("queued|after");
  });
});
