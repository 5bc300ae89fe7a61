import type { NotificationMessage } from "vscode-jsonrpc/node";
import type { Workspace } from "@/server/workspace";
import { AGENT_OPENER, normalizeUri, pathOfUri, readDocumentText, type OpenDocument } from "./documents";
import { notification } from "./lsp-messages";

// The documents a language server has open. A document stays open while anyone (an editor tab, or
// the agent's tools) holds it; the server is told of every open, change and close, through `tell`,
// which drops what a server not running could not take (it is given the open ones when it starts).

export class HeldDocuments {
  private readonly documents = new Map<string, OpenDocument>();

  constructor(
    private readonly workspace: Workspace,
    private readonly tell: (message: NotificationMessage) => void,
  ) {}

  get(uri: string): OpenDocument | undefined {
    return this.documents.get(normalizeUri(uri));
  }

  values(): OpenDocument[] {
    return [...this.documents.values()];
  }

  /** Opens a document for `opener` (or adds it as a holder); its text wins if it differs. */
  hold(rawUri: string, opener: string, languageId: string, text: string): void {
    const uri = normalizeUri(rawUri);
    const existing = this.documents.get(uri);
    if (existing) {
      existing.openers.add(opener);
      if (existing.text !== text) this.update(existing, text);
      return;
    }
    const document: OpenDocument = { uri, languageId, version: 1, text, openers: new Set([opener]) };
    this.documents.set(uri, document);
    this.tell(notification("textDocument/didOpen", { textDocument: { uri, languageId, version: 1, text } }));
  }

  release(rawUri: string, opener: string): void {
    const uri = normalizeUri(rawUri);
    const document = this.documents.get(uri);
    if (!document?.openers.delete(opener) || document.openers.size > 0) return;
    this.documents.delete(uri);
    this.tell(notification("textDocument/didClose", { textDocument: { uri } }));
  }

  update(document: OpenDocument, text: string): void {
    if (document.text === text) return;
    document.text = text;
    document.version++;
    this.tell(
      notification("textDocument/didChange", {
        textDocument: { uri: document.uri, version: document.version },
        contentChanges: [{ text }],
      }),
    );
  }

  /** Re-reads a document that no editor holds, so the agent's view matches the disk. */
  async followDisk(uri: string): Promise<void> {
    const document = this.get(uri);
    if (!document || [...document.openers].some((opener) => opener !== AGENT_OPENER)) return;
    const relative = pathOfUri(this.workspace.root, document.uri);
    const text = relative === null ? null : await readDocumentText(this.workspace, relative);
    if (text !== null) this.update(document, text);
  }
}
