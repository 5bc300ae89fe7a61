import type http from "node:http";
import { createServer } from "node:http";
import { closeSync } from "node:fs";
import { createRequire } from "node:module";
import net from "node:net";
import path from "node:path";
import type { Duplex } from "node:stream";
import type { FrontAdmission, FrontHead } from "./front-admission";
import { plainFd } from "./socket-relay";

// The previews' port, in front of Node's http server: a thread of the native module
// (server/sandbox/native/preview-front.c) carries each browser connection and serves its plain
// requests itself, once JS admitted one like them on that connection (admitFront in
// preview-server.ts: the same session, grant and checks as Node's path). Node's http server and
// client cost a small request ~300 µs of server CPU; this path costs about what a byte relay does
// (bench:preview). Every request the front does not take whole (the first of a connection, a
// WebSocket, a body, a page for the Preview panel's frame, Tandem's own paths, anything it does not
// parse) is asked of JS; JS admits it or takes the connection back into Node's http server, which
// answers it and the rest of the connection as it always did. A server without the built module
// gives every connection to Node's server.

type Ask = (FrontHead & { retry: boolean; malformed?: undefined }) | { malformed: true; retry: boolean };

type Native = {
  listen(events: (id: number, ask: Ask | null) => void): void;
  serve(fd: number): number;
  admit(id: number, fd: number, host: string, cookie: string, origin: string, local: string, exp: number): boolean;
  handback(id: number): { fd: number; bytes: Buffer } | null;
  end(id: number): void;
};

const NATIVE_MODULE = path.resolve(import.meta.dirname, "../sandbox/native/build/Release/preview_front.node");

/** The native front's module, with its events listened to by `route`; null where it is not built. */
let loaded: Native | null | undefined;
const routes = new Map<number, (ask: Ask | null) => void>();
function native(): Native | null {
  if (loaded === undefined) {
    try {
      loaded = process.platform === "linux" ? (createRequire(import.meta.url)(NATIVE_MODULE) as Native) : null;
      loaded?.listen((id, ask) => routes.get(id)?.(ask));
    } catch {
      loaded = null;
    }
  }
  return loaded;
}

export type PreviewFront = {
  /** Where the previews' port's connections go (listen on it). */
  server: net.Server;
  /** Whether the native front carries them (false: Node's http server alone). */
  readonly native: boolean;
  /** Closes every connection the front carries now (the server stops). */
  closeAll(): void;
};

/**
 * Puts the native front before `server` (which then listens on nothing itself): connections to
 * the returned server go to the front, and what it hands back to `server`.
 */
export function previewFront(
  server: http.Server,
  admitFront: (ask: FrontHead, end: () => void) => Promise<FrontAdmission | null>,
  options: { native?: boolean } = {},
): PreviewFront {
  const front = options.native === false ? null : native();
  const open = new Map<number, { release: (() => void) | null }>();

  const toNode = (socket: net.Socket) => server.emit("connection", socket);

  /** The connection is no longer the front's (it ended, or went to Node): what it held goes. */
  function forget(id: number) {
    routes.delete(id);
    open.get(id)?.release?.();
    open.delete(id);
  }

  function handBack(id: number) {
    const taken = front!.handback(id);
    if (!taken) return;
    forget(id);
    let socket: net.Socket;
    try {
      socket = new net.Socket({ fd: taken.fd, readable: true, writable: true });
    } catch {
      // Not a socket Node can hold after all: the connection is closed, nothing else is lost.
      return closeSync(taken.fd);
    }
    if (taken.bytes.length) socket.unshift(taken.bytes);
    toNode(socket);
  }

  async function asked(id: number, ask: Ask) {
    if (ask.malformed || ask.retry) return handBack(id);
    const admission = await admitFront(ask, () => front!.end(id)).catch(() => null);
    const state = open.get(id);
    if (!admission || !state) {
      admission?.upstream.destroy();
      admission?.release();
      return state ? handBack(id) : undefined;
    }
    const fd = plainFd(admission.upstream);
    let admitted = false;
    try {
      admitted =
        fd !== null &&
        front!.admit(id, fd, admission.host, admission.cookie, admission.origin, admission.local, admission.exp);
    } finally {
      // Node's handle only: the front holds its own descriptor of the connection.
      admission.upstream.destroy();
      if (!admitted) admission.release();
    }
    if (!admitted) {
      if (fd === null) handBack(id);
      return;
    }
    state.release?.();
    state.release = admission.release;
  }

  const listener = net.createServer({ noDelay: true }, (socket) => {
    const fd = front ? plainFd(socket) : null;
    if (!front || fd === null) return toNode(socket);
    let id: number;
    try {
      id = front.serve(fd);
    } catch {
      return toNode(socket);
    }
    open.set(id, { release: null });
    routes.set(id, (ask) => {
      // Whatever goes wrong answering it (a descriptor refused, a throw), the connection closes.
      if (ask) return void asked(id, ask).catch(() => front.end(id));
      forget(id);
    });
    // Node's handle only: the front holds its own descriptor of the connection.
    socket.destroy();
  });

  return {
    server: listener,
    native: front !== null,
    closeAll() {
      for (const id of open.keys()) front?.end(id);
    },
  };
}

/**
 * The previews' Node http server for `handlers` (server/preview/preview-server.ts) with the front
 * before it, as server/http/preview-listener.ts wires them: listen on `front.server`.
 */
export function frontedPreviews(
  handlers: {
    request(req: http.IncomingMessage, res: http.ServerResponse): unknown;
    upgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): unknown;
    admitFront: (ask: FrontHead, end: () => void) => Promise<FrontAdmission | null>;
  },
  options: { native?: boolean } = {},
): { server: http.Server; front: PreviewFront } {
  const server = createServer((req, res) => void handlers.request(req, res));
  server.on("upgrade", (req, socket, head) => void handlers.upgrade(req, socket, head));
  return { server, front: previewFront(server, handlers.admitFront, options) };
}
