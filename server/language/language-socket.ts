import { randomUUID } from "node:crypto";
import type { WebSocket } from "ws";
import type { Message } from "vscode-jsonrpc/node";
import { jsonRpcMessageSchema, LanguageCloseCode } from "@/lib/language-protocol";
import type { LanguageServerHub } from "./hub";

/** Methods that change what the shared server believes a document says: only people who may edit send them. */
const WRITING_METHODS = new Set(["textDocument/didChange", "textDocument/didSave", "textDocument/willSave", "workspace/executeCommand"]);

/**
 * Serves one editor on an already authenticated and authorized WebSocket: its JSON-RPC messages
 * go to the project's hub, the hub's (responses, diagnostics) come back. Edits never travel this
 * way: rename and formatting results are applied through the API's write path.
 */
export function handleLanguageSocket(ws: WebSocket, hub: LanguageServerHub, options: { canWrite(): boolean }): void {
  const connection = hub.attach({
    id: randomUUID(),
    send: (message) => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(message));
    },
  });
  ws.on("message", (raw, isBinary) => {
    let parsed: unknown;
    try {
      parsed = isBinary ? null : JSON.parse(raw.toString());
    } catch {
      parsed = null;
    }
    const message = jsonRpcMessageSchema.safeParse(parsed);
    if (!message.success) {
      ws.close(LanguageCloseCode.protocolError, "malformed message");
      return;
    }
    const method = "method" in message.data ? message.data.method : undefined;
    if (method && WRITING_METHODS.has(method) && !options.canWrite()) {
      if ("id" in message.data) ws.send(JSON.stringify({ jsonrpc: "2.0", id: message.data.id, error: { code: -32600, message: "Your role in this project is read-only." } }));
      return;
    }
    connection.receive(message.data as Message);
  });
  ws.on("close", () => connection.detach());
  // A socket error is followed by "close"; without a listener it would crash the process.
  ws.on("error", () => {});
}
