import type { FileMatches, FindEvent, FindQuery, LineMatch, MatchRef } from "@/lib/search-schemas";
import { RG_BASE_ARGS } from "@/server/workspace/ripgrep";
import { scanRipgrep } from "@/server/tools/ripgrep-scan";
import { longLineMatch } from "./rg-long-line";

/** Past this the search stops (rg is killed) and the panel says there are more. */
export const FIND_MATCH_LIMIT = 10_000;
/** Lines longer than this are shown as a window around their first match. */
const PREVIEW_CHARS = 250;
const PREVIEW_LEAD = 40;
/** rg --json lines longer than this (minified files) are read without decoding them whole. */
const LONG_LINE = 16 * 1024;
/** Results go out in batches: at most this often, or when this many matches wait. */
const BATCH_MS = 40;
const BATCH_MATCHES = 500;

export type FindOptions = { signal: AbortSignal; maxMatches?: number };

/** ripgrep's arguments for a Search-panel query (rg --json: files begin, match lines, end). */
export function findArgs(query: FindQuery): string[] {
  const args = [...RG_BASE_ARGS, "--json", "--no-messages"];
  args.push(query.matchCase ? "--case-sensitive" : "--ignore-case");
  if (!query.isRegex) args.push("--fixed-strings");
  if (query.wholeWord) args.push("--word-regexp");
  if (query.includeIgnored) args.push("--no-ignore");
  for (const glob of query.include) args.push("--glob", glob);
  for (const glob of query.exclude) args.push("--glob", `!${glob}`);
  args.push("--regexp", query.pattern);
  return args;
}

type RgText = { text?: string; bytes?: string };
type RgMessage =
  | { type: "begin"; data: { path: RgText } }
  | {
      type: "match";
      data: {
        path: RgText;
        lines: RgText;
        line_number: number;
        submatches: { match: RgText; start: number; end: number }[];
      };
    }
  | { type: "end"; data: { path: RgText } }
  | { type: "summary" | "context"; data: unknown };

/**
 * rg reports byte offsets into the UTF-8 line; the browser counts UTF-16 units. Offsets come in
 * ascending pairs, so each stretch between two is decoded once (minified lines run to megabytes).
 */
function utf16Offsets(line: string, bytes: number[]): number[] {
  if (Buffer.byteLength(line) === line.length) return bytes;
  const buffer = Buffer.from(line);
  const order = bytes.map((offset, index) => ({ offset, index })).sort((a, b) => a.offset - b.offset);
  const out = new Array<number>(bytes.length);
  let byte = 0;
  let unit = 0;
  for (const { offset, index } of order) {
    unit += buffer.toString("utf8", byte, offset).length;
    byte = offset;
    out[index] = unit;
  }
  return out;
}

function lineMatch(data: Extract<RgMessage, { type: "match" }>["data"]): LineMatch | null {
  const text = data.lines.text;
  if (text === undefined) return null; // not UTF-8: nothing a text editor could open at that spot
  const line = text.replace(/\r?\n$/, "");
  const offsets = utf16Offsets(
    line,
    data.submatches.flatMap((m) => [m.start, m.end]),
  );
  const spans = data.submatches.map((m, i) => ({
    text: m.match.text ?? "",
    start: Math.min(offsets[2 * i]!, line.length),
    end: Math.min(offsets[2 * i + 1]!, line.length),
  }));
  const first = spans[0]?.start ?? 0;
  const previewStart =
    line.length <= PREVIEW_CHARS ? 0 : Math.max(0, Math.min(first - PREVIEW_LEAD, line.length - PREVIEW_CHARS));
  const preview = line.slice(previewStart, previewStart + PREVIEW_CHARS);
  const clip = (n: number) => Math.max(0, Math.min(preview.length, n - previewStart));
  return {
    line: data.line_number,
    preview,
    previewStart,
    matches: spans.map((span) => ({
      ref: { line: data.line_number, column: span.start + 1, text: span.text } satisfies MatchRef,
      start: clip(span.start),
      end: clip(span.end),
    })),
  };
}

/**
 * Find in files: runs ripgrep over the workspace and yields its results grouped by file as they
 * come (the first file at once, then in small batches), then a summary. Stopping the iteration or
 * aborting the signal kills rg; past `maxMatches` rg is killed and the summary says `limitHit`.
 */
export async function* findInFiles(root: string, query: FindQuery, options: FindOptions): AsyncGenerator<FindEvent> {
  const started = performance.now();
  const max = options.maxMatches ?? FIND_MATCH_LIMIT;
  let files = 0;
  let matches = 0;
  let limitHit = false;
  let current: FileMatches | null = null;
  let pending: FileMatches[] = [];
  let pendingMatches = 0;
  let lastFlush = 0;
  // rg's output is parsed as it arrives; a batch that is due holds rg back until it is taken.
  let due = false;
  let finished = false;
  let wake: (() => void) | null = null;
  const onLine = (raw: Buffer): boolean => {
    const long: { line: LineMatch } | null =
      raw.length > LONG_LINE && current ? longLineMatch(raw, PREVIEW_CHARS, PREVIEW_LEAD) : null;
    const message: RgMessage | null = long ? null : (JSON.parse(raw.toString("utf8")) as RgMessage);
    if (message?.type === "begin") {
      const path: string | undefined = message.data.path.text;
      current = path === undefined ? null : { path: path.replace(/^\.\//, ""), lines: [] };
    } else if ((long || message?.type === "match") && current) {
      const found = long ? long.line : lineMatch((message as Extract<RgMessage, { type: "match" }>).data);
      if (!found) return true;
      const room = max - matches;
      if (found.matches.length > room) found.matches = found.matches.slice(0, room);
      current.lines.push(found);
      matches += found.matches.length;
      pendingMatches += found.matches.length;
      if (matches >= max) {
        limitHit = true;
        rg.kill();
      }
    } else if (message?.type === "end" && current) {
      if (current.lines.length > 0) {
        pending.push(current);
        files++;
      }
      current = null;
      // The first file goes out at once, the rest in batches.
      if (files === 1 || pendingMatches >= BATCH_MATCHES || performance.now() - lastFlush >= BATCH_MS)
        due = pending.length > 0;
    }
    if (due) wake?.();
    return !due;
  };
  const rg = scanRipgrep(findArgs(query), { root, signal: options.signal, onLine });
  const take = () => {
    const batch = pending;
    pending = [];
    pendingMatches = 0;
    lastFlush = performance.now();
    due = false;
    rg.resume();
    return { type: "files" as const, files: batch };
  };
  try {
    const exit = rg.exited.finally(() => {
      finished = true;
      wake?.();
    });
    exit.catch(() => undefined); // awaited below, unless the caller stops first
    while (!finished) {
      if (due) {
        yield take();
        continue;
      }
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
      wake = null;
    }
    const unfinished = current as FileMatches | null; // set by onLine, which TypeScript does not follow here
    if (unfinished && unfinished.lines.length > 0) {
      pending.push(unfinished);
      files++;
    }
    if (pending.length > 0) yield take();
    const { exitCode, stderr } = await exit;
    if (options.signal.aborted) return;
    // rg exits 1 when nothing matched, 2 on an error (which may still follow some results); no
    // exit code and a message means it could not start (or was killed by someone else).
    if ((exitCode === 2 || exitCode === null) && files === 0 && !limitHit && stderr.trim()) {
      yield { type: "error", message: describeRgError(stderr.trim(), query) };
      return;
    }
    yield { type: "done", files, matches, limitHit, ms: Math.round(performance.now() - started) };
  } finally {
    rg.kill();
  }
}

function describeRgError(stderr: string, query: FindQuery): string {
  if (query.isRegex && /regex parse error|error parsing regex|unclosed|unrecognized escape/i.test(stderr)) {
    return `The search is not a valid regular expression: ${stderr.split("\n").filter(Boolean).slice(-1)[0] ?? stderr}. Escape special characters such as ( [ { . with a backslash, or turn off regular expressions.`;
  }
  if (/glob/i.test(stderr)) return `A file pattern is not valid: ${stderr}`;
  return `The search failed: ${stderr}`;
}
