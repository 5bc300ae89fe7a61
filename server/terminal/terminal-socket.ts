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
  const attachment = terminal.attach({
    output: (frame) => {
      if (ws.readyState === ws.OPEN) ws.send(frame, { binary: true });
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
      case "ack":
        attachment.ack(message.bytes);
        break;
    }
  });
  ws.on("close", () => attachment.detach());
  // A socket error is followed by "close"; without a listener it would crash the process.
  ws.on("error", () => {});
}
