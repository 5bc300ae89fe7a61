import { fileURLToPath, pathToFileURL } from "node:url";
import path from "node:path";
import { TextDocument } from "vscode-languageserver-textdocument";
import type { TextDocumentContentChangeEvent } from "vscode-languageserver-protocol";
import { isInside, type Workspace } from "@/server/workspace";

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

/**
 * The workspace-relative POSIX path a URI names, or null when it names anything else: the one
 * place where a URI from an editor or from a language server becomes a path. Only a `file:` URI
 * with no host, query or fragment; each segment is decoded on its own, and a segment that is
 * empty, '.' or '..', or hides a '/' or a NUL once decoded (%2e%2e, %2f, %00), refuses the whole
 * URI rather than being normalized away. What is left must lie under `root` (a dependency's .d.ts
 * in node_modules is inside; the bundled TypeScript's lib.d.ts is not).
 */
export function pathOfUri(root: string, uri: string): string | null {
  const match = /^file:\/\/(\/[^?#]*)$/.exec(uri);
  if (!match) return null;
  const segments = match[1]!.slice(1).split("/");
  if (segments.at(-1) === "") segments.pop(); // a folder's trailing slash
  const names: string[] = [];
  for (const segment of segments) {
    let name: string;
    try {
      name = decodeURIComponent(segment);
    } catch {
      return null;
    }
    if (name === "" || name === "." || name === ".." || name.includes("/") || name.includes("\0")) return null;
    names.push(name);
  }
  const absolute = `/${names.join("/")}`;
  if (!isInside(root, absolute)) return null;
  return path.relative(root, absolute).split(path.sep).join("/");
}

/**
 * A workspace file's text for the server, read through the workspace (contained, links never
 * leading out), or null when it is missing, binary or not a file.
 */
export async function readDocumentText(workspace: Workspace, relative: string): Promise<string | null> {
  const read = await workspace.read(relative).catch(() => null);
  return read?.kind === "text" ? read.content : null;
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
export function applyChanges(
  text: string,
  languageId: string,
  changes: readonly TextDocumentContentChangeEvent[],
): string {
  return changes.reduce((current, change) => {
    if (!("range" in change)) return change.text;
    const document = TextDocument.create("file:///document", languageId, 0, current);
    return TextDocument.applyEdits(document, [{ range: change.range, newText: change.text }]);
  }, text);
}
