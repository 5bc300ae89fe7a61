import { fileURLToPath, pathToFileURL } from "node:url";
import path from "node:path";
import { TextDocument } from "vscode-languageserver-textdocument";
import type { TextDocumentContentChangeEvent } from "vscode-languageserver-protocol";

/** The one spelling of a file URI the hub keys things by (servers and Monaco escape differently). */
export function normalizeUri(uri: string): string {
  if (!uri.startsWith("file:")) return uri;
  try {
    return pathToFileURL(fileURLToPath(uri)).href;
  } catch {
    return uri;
  }
}

export function uriOfPath(root: string, relative: string): string {
  return pathToFileURL(path.join(root, relative)).href;
}

/** The workspace-relative POSIX path of a file URI, or null when it is outside the root (a dependency's .d.ts is inside node_modules, which is inside). */
export function pathOfUri(root: string, uri: string): string | null {
  if (!uri.startsWith("file:")) return null;
  const absolute = fileURLToPath(uri);
  const relative = path.relative(root, absolute);
  if (relative.startsWith("..") || path.isAbsolute(relative)) return null;
  return relative.split(path.sep).join("/");
}

/** A document the server has open: its text as the hub last sent it, and who holds it open. */
export type OpenDocument = {
  uri: string;
  languageId: string;
  version: number;
  text: string;
  /** Client ids of the editors that opened it, and AGENT_OPENER while the agent's tools use it. */
  openers: Set<string>;
};

export const AGENT_OPENER = "agent";

/** Applies LSP content changes (ranged or whole-text), in order, to a text. */
export function applyChanges(text: string, languageId: string, changes: readonly TextDocumentContentChangeEvent[]): string {
  return changes.reduce((current, change) => {
    if (!("range" in change)) return change.text;
    const document = TextDocument.create("file:///document", languageId, 0, current);
    return TextDocument.applyEdits(document, [{ range: change.range, newText: change.text }]);
  }, text);
}
