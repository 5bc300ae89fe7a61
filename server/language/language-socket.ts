import { randomUUID } from "node:crypto";
import type { WebSocket } from "ws";
import type { Message } from "vscode-jsonrpc/node";
import { jsonRpcMessageSchema, LanguageCloseCode } from "@/lib/language-protocol";
import type { LanguageServerHub } from "./hub";
import { uriOfPath } from "./documents";

/**
 * Editors name files `file:///<workspace path>`; the server knows them under the workspace's real
 * root. URIs are rewritten both ways at the socket, which also keeps the server's data directory
 * out of the browser. Files outside the workspace that the server reports (the bundled
 * TypeScript's lib.d.ts) reach the editor under a scheme of their own, which it never opens or
 * sends back; one from the editor stays as it is, and the hub refuses it (never a host path).
 */
export const EXTERNAL_SCHEME = "tandem-external";

export function uriRewriter(root: string) {
  const server = uriOfPath(root, "");
  const serverPrefix = server.endsWith("/") ? server : `${server}/`;
  const rewrite = (value: unknown, from: string, to: string, exact: [string, string]): unknown => {
    if (typeof value === "string") {
      if (value === exact[0]) return exact[1];
      return value.startsWith(from) ? to + value.slice(from.length) : value;
    }
    if (Array.isArray(value)) return value.map((item) => rewrite(item, from, to, exact));
    if (value && typeof value === "object") {
      return Object.fromEntries(
        Object.entries(value).map(([key, item]) => [
          rewrite(key, from, to, exact) as string,
          rewrite(item, from, to, exact),
        ]),
      );
    }
    return value;
  };
  const bare = serverPrefix.slice(0, -1);
  return {
    // Other files (the bundled TypeScript's lib.d.ts) get a scheme of their own, so no editor takes them for workspace files.
    toClient: (message: unknown) =>
      rewrite(
        rewrite(message, "file:///", `${EXTERNAL_SCHEME}:///`, ["", ""]),
        `${EXTERNAL_SCHEME}://${serverPrefix.slice("file://".length)}`,
        "file:///",
        [`${EXTERNAL_SCHEME}://${bare.slice("file://".length)}`, "file:///"],
      ),
    toServer: (message: unknown) => rewrite(message, "file:///", serverPrefix, ["file:///", bare]),
  };
}

/** Methods that change what the shared server believes a document says: only people who may edit send them. */
const WRITING_METHODS = new Set([
  "textDocument/didChange",
  "textDocument/didSave",
  "textDocument/willSave",
  "workspace/executeCommand",
]);

/**
 * Serves one editor on an already authenticated and authorized WebSocket: its JSON-RPC messages
 * go to the project's hub, the hub's (responses, diagnostics) come back. Edits never travel this
 * way: rename and formatting results are applied through the API's write path.
 */
export function handleLanguageSocket(
  ws: WebSocket,
  hub: LanguageServerHub,
  options: { root: string; canWrite(): boolean },
): void {
  const uris = uriRewriter(options.root);
  const connection = hub.attach({
    id: randomUUID(),
    mayEdit: options.canWrite,
    send: (message) => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(uris.toClient(message)));
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
      if ("id" in message.data)
        ws.send(
          JSON.stringify({
            jsonrpc: "2.0",
            id: message.data.id,
            error: { code: -32600, message: "Your role in this project is read-only." },
          }),
        );
      return;
    }
    connection.receive(uris.toServer(message.data) as Message);
  });
  ws.on("close", () => connection.detach());
  // A socket error is followed by "close"; without a listener it would crash the process.
  ws.on("error", () => {});
}
