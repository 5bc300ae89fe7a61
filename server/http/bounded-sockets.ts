import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { type WebSocket, WebSocketServer } from "ws";

// What the server sends on a WebSocket waits in its memory until the client reads it, and the
// client decides when it reads: one that subscribes to a session's events or a setup's output and
// never reads had all of it queued in the server, whose memory every team shares. A client this
// far behind could not catch up by reading anyway: it is dropped, and a browser reconnects and
// asks for what it missed (session.events' afterSeq, a setup's or a terminal's snapshot).

/** More than a long session's history replayed at once to a live client, far less than a server can spare per socket. */
export const MAX_QUEUED_BYTES = 64 * 1024 * 1024;

/** A WebSocketServer whose sockets are dropped once more than `maxQueued` bytes wait to be sent on one. */
export class BoundedWebSocketServer extends WebSocketServer {
  maxQueued = MAX_QUEUED_BYTES;

  override handleUpgrade(
    request: IncomingMessage,
    socket: Duplex,
    upgradeHead: Buffer,
    callback: (client: WebSocket, request: IncomingMessage) => void,
  ): void {
    super.handleUpgrade(request, socket, upgradeHead, (ws, req) => {
      dropWhenFarBehind(ws, this.maxQueued);
      callback(ws, req);
    });
  }
}

function dropWhenFarBehind(ws: WebSocket, maxQueued: number): void {
  const send = ws.send.bind(ws) as (data: unknown, options?: unknown, cb?: (error?: Error) => void) => void;
  ws.send = ((data: unknown, options?: unknown, cb?: (error?: Error) => void) => {
    const done = typeof options === "function" ? (options as (error?: Error) => void) : cb;
    if (ws.bufferedAmount > maxQueued) {
      ws.terminate();
      done?.(new Error("the client fell too far behind and was disconnected"));
      return;
    }
    send(data, options, cb);
  }) as WebSocket["send"];
}
