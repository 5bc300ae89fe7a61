import type { WebSocket } from "ws";
import { parseClientMessage, TerminalCloseCode } from "@/lib/terminal-protocol";
import type { TerminalSession } from "./terminal-session";

export interface TerminalSocketOptions {
  terminal: TerminalSession;
  /** Viewers see output but may neither type nor resize the shared PTY. Asked per message, since input can be granted while connected. */
  canWrite: boolean | (() => boolean);
}

/** Serves one client on an already authenticated and authorized WebSocket. */
export function handleTerminalSocket(ws: WebSocket, { terminal, canWrite: allowed }: TerminalSocketOptions): void {
  const canWrite = () => (typeof allowed === "function" ? allowed() : allowed);
  // An acknowledgement is the client's word: it counts only for bytes that left the server (handed
  // to the kernel), so a client that acknowledges what it never read cannot have output queued for it
  // here without end. A real client acknowledges only what it received, which has left.
  let flushed = 0;
  let acknowledged = 0;
  const attachment = terminal.attach({
    output: (frame) => {
      if (ws.readyState === ws.OPEN)
        ws.send(frame, { binary: true }, (error) => {
          if (!error) flushed += frame.length;
        });
    },
    message: (message) => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(message));
    },
    close: (code, reason) => ws.close(code, reason),
  });

  ws.on("message", (raw, isBinary) => {
    const message = isBinary ? null : parseClientMessage(raw.toString());
    if (!message) {
      ws.close(TerminalCloseCode.protocolError, "malformed message");
      return;
    }
    switch (message.type) {
      case "input":
        if (canWrite()) terminal.write(message.data);
        break;
      case "resize":
        if (canWrite()) terminal.resize(message.cols, message.rows);
        break;
      case "ack": {
        const bytes = Math.min(message.bytes, flushed - acknowledged);
        if (bytes > 0) {
          acknowledged += bytes;
          attachment.ack(bytes);
        }
        break;
      }
    }
  });
  ws.on("close", () => attachment.detach());
  // A socket error is followed by "close"; without a listener it would crash the process.
  ws.on("error", () => {});
}
