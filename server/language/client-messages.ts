import type { NotificationMessage, RequestMessage } from "vscode-jsonrpc/node";
import { pathOfUri, uriOfPath } from "./documents";

// What an editor may send the server its whole project shares.

/**
 * The notifications a client may send. The workspace-wide ones (folders, configuration, watched
 * files) are the hub's own to send: from a client they would change the shared server for
 * everyone, or point it outside the workspace.
 */
export const CLIENT_NOTIFICATIONS: ReadonlySet<string> = new Set([
  "initialized",
  "exit",
  "$/cancelRequest",
  "textDocument/didOpen",
  "textDocument/didChange",
  "textDocument/didClose",
  "textDocument/didSave",
  "textDocument/willSave",
]);

/**
 * A client names only documents of the workspace at `root`: a message whose `textDocument.uri` is
 * anything else (another scheme, '..', an encoded climb, a path outside) is refused (null), and an
 * accepted one is given the canonical spelling, so the server and the hub's documents agree on
 * what it names.
 */
export function containedInWorkspace<M extends RequestMessage | NotificationMessage>(
  root: string,
  message: M,
): M | null {
  const params = message.params as { textDocument?: { uri?: unknown } } | undefined;
  const document = params?.textDocument;
  if (!document || typeof document !== "object" || !("uri" in document)) return message;
  const relative = typeof document.uri === "string" ? pathOfUri(root, document.uri) : null;
  if (relative === null || relative === "") return null;
  return { ...message, params: { ...params, textDocument: { ...document, uri: uriOfPath(root, relative) } } };
}
