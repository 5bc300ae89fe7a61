import { byLengthAsc, Fzf } from "fzf";

export type FileMatch = { path: string; positions: number[] };

/**
 * Ranks a workspace's files for quick open with fzf's algorithm (what fzf and VS Code's quick open
 * do: letters in order, bonus at word and path boundaries), shorter paths first on a tie.
 * An empty query lists `recent` first, then the rest in order.
 */
export function rankFiles(
  files: readonly string[],
  query: string,
  options: { limit?: number; recent?: readonly string[] } = {},
): FileMatch[] {
  const limit = options.limit ?? 50;
  const q = query.trim().replace(/\s+/g, "");
  if (!q) {
    const recent = (options.recent ?? []).filter((path) => files.includes(path));
    const rest = files.filter((path) => !recent.includes(path));
    return [...recent, ...rest].slice(0, limit).map((path) => ({ path, positions: [] }));
  }
  const fzf = new Fzf(files, { limit, tiebreakers: [byLengthAsc] });
  return fzf.find(q).map((entry) => ({ path: entry.item, positions: [...entry.positions].sort((a, b) => a - b) }));
}

/** Splits `text` into runs that are matched or not, for highlighting the letters a query hit. */
export function highlightRuns(
  text: string,
  positions: readonly number[],
  offset = 0,
): { text: string; hit: boolean }[] {
  const hits = new Set(positions.map((p) => p - offset));
  const runs: { text: string; hit: boolean }[] = [];
  for (let i = 0; i < text.length; i++) {
    const hit = hits.has(i);
    const last = runs.at(-1);
    if (last && last.hit === hit) last.text += text[i];
    else runs.push({ text: text[i]!, hit });
  }
  return runs;
}
