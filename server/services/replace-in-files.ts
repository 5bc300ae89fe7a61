import { InvalidPatternError, matcherFor, replacementAt } from "@/lib/search-replace";
import type { FindQuery, MatchRef, ReplaceFileResult } from "@/lib/search-schemas";
import { diffFile } from "@/server/tools/diff-display";
import type { DiffFile } from "@/lib/tool-display";
import { isWorkspaceError, type Workspace } from "@/server/workspace";

// Replace across files. ripgrep finds (Rust regex); the replacement is computed with a JavaScript
// RegExp built from the same query (lib/search-replace), line by line as rg matches, and applied
// only at the matches the person kept, each checked against its line, column and text: a file that changed
// since the search is reported, never half-replaced. Writes go through Workspace.write with the
// version just read, the same path as an editor's save, so the file watcher tells open editors.

type Found = { ref: MatchRef; replacement: string; start: number; end: number };

const keyOf = (ref: { line: number; column: number }) => `${ref.line}:${ref.column}`;

/** Every match of `regex` in `content`, line by line, with what `replacement` turns it into. */
export function matchesIn(content: string, query: FindQuery, replacement: string): Found[] {
  const regex = matcherFor(query);
  const found: Found[] = [];
  let lineStart = 0;
  let lineNumber = 1;
  while (lineStart <= content.length) {
    const newline = content.indexOf("\n", lineStart);
    const lineEnd = newline === -1 ? content.length : newline;
    const line = content.slice(lineStart, lineEnd).replace(/\r$/, "");
    regex.lastIndex = 0;
    for (let m = regex.exec(line); m; m = regex.exec(line)) {
      if (m[0] === "") {
        regex.lastIndex++;
        continue;
      }
      const replaced = replacementAt(regex, query.isRegex, line, m.index, m[0].length, replacement);
      found.push({
        ref: { line: lineNumber, column: m.index + 1, text: m[0] },
        replacement: replaced,
        start: lineStart + m.index,
        end: lineStart + m.index + m[0].length,
      });
    }
    if (newline === -1) break;
    lineStart = newline + 1;
    lineNumber++;
  }
  return found;
}

/** `content` with the kept matches replaced; `missing` lists kept matches no longer there. */
export function applyReplacements(content: string, query: FindQuery, replacement: string, keep: readonly MatchRef[]) {
  const current = new Map(matchesIn(content, query, replacement).map((f) => [keyOf(f.ref), f]));
  const chosen: Found[] = [];
  const missing: MatchRef[] = [];
  for (const ref of keep) {
    const found = current.get(keyOf(ref));
    if (found && found.ref.text === ref.text) chosen.push(found);
    else missing.push(ref);
  }
  chosen.sort((a, b) => a.start - b.start);
  let result = "";
  let at = 0;
  for (const found of chosen) {
    result += content.slice(at, found.start) + found.replacement;
    at = found.end;
  }
  return { content: result + content.slice(at), replaced: chosen.length, missing };
}

const changedSinceSearch = (path: string, missing: number) =>
  `${path} changed since the search (${missing} of the chosen matches are no longer where they were); nothing was replaced in it. Search again.`;

async function textOf(workspace: Workspace, path: string) {
  const file = await workspace.read(path);
  if (file.kind !== "text") return { error: { code: "NOT_TEXT" as const, message: `${path} is not a text file.` } };
  if (file.readOnly)
    return { error: { code: "READ_ONLY" as const, message: file.notice ?? `${path} is read-only here.` } };
  return { file };
}

/** The per-file diff the Search panel shows before replacing. */
export async function previewReplace(
  workspace: Workspace,
  input: { query: FindQuery; replacement: string; path: string; matches: MatchRef[] },
): Promise<DiffFile & { missing: number }> {
  const { file, error } = await textOf(workspace, input.path);
  if (error) throw new InvalidPatternError(error.message);
  const result = applyReplacements(file.content, input.query, input.replacement, input.matches);
  return { ...diffFile(input.path, file.content, result.content, false), missing: result.missing.length };
}

/** Replaces the kept matches of each file and saves it; one result per file, in order. */
export async function replaceInFiles(
  workspace: Workspace,
  input: { query: FindQuery; replacement: string; files: { path: string; matches: MatchRef[] }[] },
): Promise<ReplaceFileResult[]> {
  matcherFor(input.query); // a bad pattern is one error, not one per file
  const results: ReplaceFileResult[] = [];
  for (const target of input.files) {
    try {
      const { file, error } = await textOf(workspace, target.path);
      if (error) {
        results.push({ path: target.path, ok: false, ...error });
        continue;
      }
      const result = applyReplacements(file.content, input.query, input.replacement, target.matches);
      if (result.missing.length > 0) {
        results.push({
          path: target.path,
          ok: false,
          code: "CONFLICT",
          message: changedSinceSearch(target.path, result.missing.length),
        });
        continue;
      }
      await workspace.write(target.path, result.content, { expectedVersion: file.version });
      results.push({ path: target.path, ok: true, replaced: result.replaced });
    } catch (error) {
      if (!isWorkspaceError(error)) throw error;
      const code = error.code === "CONFLICT" ? "CONFLICT" : "FAILED";
      const message =
        error.code === "CONFLICT"
          ? `${target.path} changed while it was being replaced; nothing was replaced in it. Search again.`
          : error.message;
      results.push({ path: target.path, ok: false, code, message });
    }
  }
  return results;
}
