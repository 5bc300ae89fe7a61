import { byLengthAsc, Fzf } from "fzf";
import type { FileChange } from "@/lib/fs-schemas";

export type FileMatch = { path: string; positions: number[] };

/**
 * How many candidates fzf ranks at most. fzf scores every path it is given (its v2 algorithm,
 * with the matched positions), which on 30,000 paths took 100-700 ms per key; a query of a letter
 * or two matches nearly all of them, so those are first narrowed to the likeliest by a cheap score.
 */
const RANKED = 300;

/**
 * A workspace's paths, ranked for quick open with fzf's algorithm (what fzf and VS Code's quick
 * open do: letters in order, bonus at word and path boundaries), shorter paths first on a tie.
 * Kept between keys: a query that extends the previous one searches only what that one matched,
 * so typing narrows instead of starting over. `apply` keeps it current as files come and go.
 */
export class PathIndex {
  private paths: string[] = [];
  private lower: string[] = [];
  /** Where each path's file name starts (after its last slash). */
  private names: number[] = [];
  private known = new Set<string>();
  /**
   * The last query's candidates (indexes into `paths`), with the query as it was matched (as
   * typed when case-sensitive, plain when not); dropped when the paths change.
   */
  private last: { query: string; caseSensitive: boolean; candidates: number[] } | null = null;

  constructor(paths: readonly string[] = []) {
    this.reset(paths);
  }

  get size(): number {
    return this.paths.length;
  }

  reset(paths: readonly string[]): void {
    this.paths = [...new Set(paths)];
    this.lower = this.paths.map(plain);
    this.names = this.paths.map(nameStart);
    this.known = new Set(this.paths);
    this.last = null;
  }

  /** Follows files made and deleted (a folder deleted takes what was beneath it), in one pass. */
  apply(changes: readonly Pick<FileChange, "type" | "path">[]): void {
    const files = new Set<string>();
    const folders: string[] = [];
    for (const change of changes) {
      if (change.type === "add" && !this.known.has(change.path)) {
        this.known.add(change.path);
        this.paths.push(change.path);
        this.lower.push(plain(change.path));
        this.names.push(nameStart(change.path));
        this.last = null;
      } else if (change.type === "unlink" && this.known.has(change.path)) files.add(change.path);
      else if (change.type === "unlinkDir") folders.push(`${change.path}/`);
    }
    if (files.size === 0 && folders.length === 0) return;
    const gone = (p: string) => files.has(p) || folders.some((folder) => p.startsWith(folder));
    const keep = this.paths.map((p) => !gone(p));
    if (keep.every(Boolean)) return;
    this.paths = this.paths.filter((_, i) => keep[i]);
    this.lower = this.lower.filter((_, i) => keep[i]);
    this.names = this.names.filter((_, i) => keep[i]);
    this.known = new Set(this.paths);
    this.last = null;
  }

  /** An empty query lists `recent` first, then the rest in order. */
  rank(query: string, options: { limit?: number; recent?: readonly string[] } = {}): FileMatch[] {
    const limit = options.limit ?? 50;
    const q = query.trim().replace(/\s+/g, "");
    if (!q) {
      const recent = (options.recent ?? []).filter((path) => this.known.has(path));
      const shown = new Set(recent);
      const rest: string[] = [];
      for (const path of this.paths) {
        if (rest.length + recent.length >= limit) break;
        if (!shown.has(path)) rest.push(path);
      }
      return [...recent, ...rest].slice(0, limit).map((path) => ({ path, positions: [] }));
    }
    // fzf's smart case: a capital letter in the query makes it case-sensitive.
    const caseSensitive = q !== q.toLowerCase();
    const matched = caseSensitive ? q : plain(q);
    // Every path that holds a query's letters in order holds those of the query it extends. So does
    // one that holds them with their case (a capital typed after lower-case letters).
    const last = this.last;
    const narrows = last && (last.caseSensitive ? q : plain(q)).startsWith(last.query);
    const candidates = this.inOrder(matched, caseSensitive, narrows ? last.candidates : null);
    this.last = { query: matched, caseSensitive, candidates };
    const pool = candidates.length > RANKED ? this.likeliest(plain(q), candidates) : candidates;
    const fzf = new Fzf(
      pool.map((i) => this.paths[i]!),
      { limit, tiebreakers: [byLengthAsc] },
    );
    return fzf.find(q).map((entry) => ({ path: entry.item, positions: [...entry.positions].sort((a, b) => a - b) }));
  }

  /** The paths that hold the query's letters in order (all fzf can match), among `from` if given. */
  private inOrder(q: string, caseSensitive: boolean, from: number[] | null): number[] {
    const texts = caseSensitive ? this.paths : this.lower;
    const out: number[] = [];
    const test = (i: number) => {
      const text = texts[i]!;
      let at = -1;
      for (let c = 0; c < q.length; c++) {
        at = text.indexOf(q[c]!, at + 1);
        if (at === -1) return;
      }
      out.push(i);
    };
    if (from) for (const i of from) test(i);
    else for (let i = 0; i < texts.length; i++) test(i);
    return out;
  }

  /**
   * The `RANKED` candidates fzf would most likely rank first: the query whole at the start of the
   * file name, then inside it, then anywhere in the path, then only as scattered letters; shorter
   * paths first within each.
   */
  private likeliest(q: string, candidates: number[]): number[] {
    const tiers: number[][] = [[], [], [], []];
    for (const i of candidates) {
      const text = this.lower[i]!;
      const name = this.names[i]!;
      const first = text.indexOf(q);
      const inName = first >= name ? first : first === -1 ? -1 : text.indexOf(q, name);
      tiers[first === -1 ? 3 : inName === name ? 0 : inName !== -1 ? 1 : 2]!.push(i);
    }
    const out: number[] = [];
    for (const tier of tiers) {
      const room = RANKED - out.length;
      if (tier.length <= room) {
        out.push(...tier);
        continue;
      }
      // The shortest of the tier that does not fit whole: a bucket per length, no sort of thousands.
      const byLength: number[][] = [];
      for (const i of tier) (byLength[this.paths[i]!.length] ??= []).push(i);
      for (const bucket of byLength) {
        if (!bucket) continue;
        out.push(...bucket.slice(0, RANKED - out.length));
        if (out.length >= RANKED) break;
      }
      break;
    }
    return out;
  }
}

const nameStart = (path: string) => path.lastIndexOf("/") + 1;

/** Lower case without accents, as fzf compares by default ("e" finds "é"). */
const plain = (text: string) =>
  ASCII.test(text)
    ? text.toLowerCase()
    : text
        .normalize("NFD")
        .replace(/[\u0300-\u036f]/g, "")
        .toLowerCase();
/** Most paths: nothing to take accents from (normalizing every one of 30,000 costs ~10 ms). */
const ASCII = /^[\x00-\x7f]*$/;

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

/** What the page asks quick open's worker (components/ui/quick-open-worker.ts). */
export type QuickOpenRequest =
  | { type: "files"; files: string[] }
  | { type: "changes"; changes: Pick<FileChange, "type" | "path">[] }
  | { type: "rank"; id: number; query: string; recent: string[]; limit: number };

/** The worker's answer to a `rank`. */
export type QuickOpenReply = { id: number; matches: FileMatch[] };
