import type { FileMatches, LineMatch, MatchRef } from "@/lib/search-schemas";

export const fileKey = (path: string) => `f:${path}`;
export const matchKey = (path: string, ref: { line: number; column: number }) => `m:${path}:${ref.line}:${ref.column}`;

export type ResultRow =
  | { kind: "file"; file: FileMatches; count: number }
  | { kind: "match"; file: FileMatches; line: LineMatch; index: number };

/** The Search panel's rows for a list of files, with what they show (dismissed results left out). */
export type ResultRows = {
  files: readonly FileMatches[];
  dismissed: ReadonlySet<string>;
  collapsed: ReadonlySet<string>;
  rows: readonly ResultRow[];
  /** Matches and files shown (counted whether a file is collapsed or not). */
  matches: number;
  fileCount: number;
};

/**
 * The rows for `files`. While a search streams, `files` only grows (each batch appended to the
 * last list), so the rows of `previous` are kept and only the new files' rows are built: a search
 * of 10,000 matches drawn in twenty frames built every row (and a key string per match) in each
 * of them, 130 ms of the page's main thread. Anything else (another search, a dismissal, a
 * collapse) builds them all again.
 */
export function resultRows(
  previous: ResultRows | null,
  files: readonly FileMatches[],
  dismissed: ReadonlySet<string>,
  collapsed: ReadonlySet<string>,
): ResultRows {
  const kept = previous?.files.length ?? 0;
  const extended =
    previous !== null &&
    previous.dismissed === dismissed &&
    previous.collapsed === collapsed &&
    kept <= files.length &&
    (kept === 0 || (files[0] === previous.files[0] && files[kept - 1] === previous.files[kept - 1]));
  const added: ResultRow[] = [];
  let matches = extended ? previous.matches : 0;
  let fileCount = extended ? previous.fileCount : 0;
  for (let i = extended ? kept : 0; i < files.length; i++) {
    const file = files[i]!;
    if (dismissed.has(fileKey(file.path))) continue;
    const shown: { line: LineMatch; index: number }[] = [];
    for (const line of file.lines)
      for (let index = 0; index < line.matches.length; index++)
        // Keys are built only when something was dismissed: a search's own rows need none.
        if (dismissed.size === 0 || !dismissed.has(matchKey(file.path, line.matches[index]!.ref)))
          shown.push({ line, index });
    if (shown.length === 0) continue;
    matches += shown.length;
    fileCount++;
    added.push({ kind: "file", file, count: shown.length });
    if (!collapsed.has(file.path))
      for (const { line, index } of shown) added.push({ kind: "match", file, line, index });
  }
  return {
    files,
    dismissed,
    collapsed,
    rows: extended ? previous.rows.concat(added) : added,
    matches,
    fileCount,
  };
}

/** The matches of `file` still shown, as the server's replace takes them. */
export function keptMatches(file: FileMatches, dismissed: ReadonlySet<string>): MatchRef[] {
  if (dismissed.has(fileKey(file.path))) return [];
  return file.lines
    .flatMap((l) => l.matches.map((m) => m.ref))
    .filter((ref) => dismissed.size === 0 || !dismissed.has(matchKey(file.path, ref)));
}
