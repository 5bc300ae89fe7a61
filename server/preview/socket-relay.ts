import { createRequire } from "node:module";
import net from "node:net";
import path from "node:path";
import type { Duplex } from "node:stream";
import tls from "node:tls";

// A WebSocket's bytes after its handshake (hot reload's), between the browser's connection and the
// dev server's: nothing in them is read or changed, so they are relayed by a thread of the native
// module (server/sandbox/native/socket-relay.c) rather than by Node, whose event loop adds two
// wakeups and the JS around them to every message (a small message's round trip: Node's pipe
// 2.1-2.7x direct, the native relay 1.6-2.1x; socket-relay.c has the figures). A client that is
// not a plain socket (a TLS one, a peer's forwarded stream) or a server without the built module
// keeps Node's pipe.

type Native = {
  relay(clientFd: number, upstreamFd: number, toClient: Buffer, toUpstream: Buffer, ended: () => void): number;
  end(id: number): void;
};

const NATIVE_MODULE = path.resolve(import.meta.dirname, "../sandbox/native/build/Release/socket_relay.node");

let loaded: Native | null | undefined;
function native(): Native | null {
  if (loaded === undefined) {
    try {
      loaded = process.platform === "linux" ? (createRequire(import.meta.url)(NATIVE_MODULE) as Native) : null;
    } catch {
      loaded = null;
    }
  }
  return loaded;
}

export type SocketRelay = {
  /** Closes both connections at once; `ended` follows. */
  end(): void;
  /** Whether the native relay carries it (false: Node's pipe). */
  readonly native: boolean;
};

/** The descriptor of a plain TCP (or Unix) socket Node holds, or null for anything else. */
export function plainFd(socket: Duplex): number | null {
  if (!(socket instanceof net.Socket) || socket instanceof tls.TLSSocket) return null;
  const fd = (socket as { _handle?: { fd?: number } })._handle?.fd;
  return typeof fd === "number" && fd >= 0 ? fd : null;
}

/** What Node read from a paused socket and nobody took yet. */
function buffered(socket: Duplex): Buffer[] {
  const chunks: Buffer[] = [];
  for (let chunk: Buffer | null; (chunk = socket.read() as Buffer | null) !== null; ) chunks.push(chunk);
  return chunks;
}

/**
 * Relays bytes both ways between two connected sockets, paused and with no reader, until both
 * directions ended (each side's FIN passed on to the other) or either failed; then both are
 * closed and `ended` is called, once. `toClient` and `toUpstream` are written first. The sockets
 * must carry no listener of their own that acts on their `close`: Node's handles of them close
 * as the native relay takes the connections over.
 */
export function relaySockets(
  client: Duplex,
  upstream: net.Socket,
  first: { toClient: Buffer; toUpstream: Buffer },
  ended: () => void,
  options: { native?: boolean } = {},
): SocketRelay {
  let over = false;
  const end = () => {
    if (over) return;
    over = true;
    ended();
  };
  const relay = options.native === false ? null : native();
  const clientFd = plainFd(client);
  const upstreamFd = plainFd(upstream);
  // Bytes Node still has to write would be lost with its handles: those keep Node's pipe.
  if (relay && clientFd !== null && upstreamFd !== null && !client.writableLength && !upstream.writableLength) {
    const fromClient = Buffer.concat(buffered(client));
    const fromUpstream = Buffer.concat(buffered(upstream));
    let id: number | null = null;
    try {
      id = relay.relay(
        clientFd,
        upstreamFd,
        Buffer.concat([first.toClient, fromUpstream]),
        Buffer.concat([first.toUpstream, fromClient]),
        end,
      );
    } catch {
      // The thread could not start, or no memory: Node's pipe, with what was read put back.
      if (fromClient.length) client.unshift(fromClient);
      if (fromUpstream.length) upstream.unshift(fromUpstream);
    }
    if (id !== null) {
      const taken = id;
      // Closes Node's descriptors only: the relay holds its own, so the connections stay up.
      client.destroy();
      upstream.destroy();
      return { end: () => relay.end(taken), native: true };
    }
  }
  return pipe(client, upstream, first, end);
}

function pipe(
  client: Duplex,
  upstream: net.Socket,
  first: { toClient: Buffer; toUpstream: Buffer },
  ended: () => void,
): SocketRelay {
  const end = () => {
    client.destroy();
    upstream.destroy();
  };
  client.on("error", end);
  upstream.on("error", end);
  client.on("close", () => {
    upstream.destroy();
    ended();
  });
  upstream.on("close", () => client.destroy());
  if (first.toClient.length) client.write(first.toClient);
  if (first.toUpstream.length) upstream.write(first.toUpstream);
  upstream.pipe(client);
  client.pipe(upstream);
  return { end, native: false };
}
