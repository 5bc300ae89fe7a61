import { TextDocument } from "vscode-languageserver-textdocument";
import type { Workspace } from "@/server/workspace";
import { encode } from "@/server/workspace/text-codec";
import { commitFiles } from "@/server/workspace/transaction";
import { LanguageUnavailable, type ProjectLanguage } from "./project-language";

export type RenamedFile = { path: string; before: string; after: string; version: string };

export class RenameConflict extends Error {}

/**
 * Renames the symbol at a position across the project as one change: the server's edits are
 * applied to the saved files and written in one transaction (all files or none), through the
 * workspace like any save, so editors reload and the change stream carries it. A file with unsaved
 * changes in an editor, or one that changed while the rename was computed, is a conflict: nothing is written.
 */
export async function renameSymbol(
  workspace: Workspace,
  language: ProjectLanguage,
  at: { path: string; line: number; column: number },
  newName: string,
): Promise<RenamedFile[]> {
  const edits = await language.renameEdits(at.path, at.line, at.column, newName);
  if (edits.size === 0)
    throw new LanguageUnavailable(`Nothing to rename at ${at.path}:${at.line}:${at.column}; point at a symbol.`);
  const planned = [];
  for (const [file, fileEdits] of edits) {
    const read = await workspace.read(file);
    if (read.kind !== "text" || read.readOnly)
      throw new LanguageUnavailable(`'${file}' cannot be edited here (binary, too large or not UTF-8).`);
    if ((await language.unsavedText(file, read.content)) !== undefined) {
      throw new RenameConflict(`'${file}' has unsaved changes in an editor. Save or revert it, then rename again.`);
    }
    const after = TextDocument.applyEdits(
      TextDocument.create("file:///document", "plaintext", 0, read.content),
      fileEdits,
    );
    planned.push({ path: file, before: read.content, after, read });
  }
  const { versions } = await commitFiles(
    workspace,
    planned.map((p) => ({
      path: p.path,
      bytes: encode(p.after, { encoding: p.read.encoding, bom: p.read.bom, eol: p.read.eol }),
      expectedVersion: p.read.version,
    })),
  ).catch((error: unknown) => {
    if (error instanceof Error && "code" in error && error.code === "CONFLICT")
      throw new RenameConflict(`${error.message} Rename again.`);
    throw error;
  });
  return planned.map((p, i) => ({ path: p.path, before: p.before, after: p.after, version: versions[i]! }));
}
