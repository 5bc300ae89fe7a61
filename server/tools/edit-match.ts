/** The exact-match rules shared by edit and multi_edit: pure text in, text or a fixable error out. */

export type MatchOutcome =
  | { ok: true; text: string; count: number; lines: number[] }
  | { ok: false; code: "NO_MATCH" | "AMBIGUOUS_MATCH" | "INVALID_INPUT"; message: string };

export interface EditSpec {
  old_string: string;
  new_string: string;
  replace_all?: boolean;
}

const MAX_LISTED_LINES = 20;

function lf(s: string): string {
  return s.replace(/\r\n/g, "\n");
}

/** Start offsets of every non-overlapping occurrence. */
function occurrences(text: string, needle: string): number[] {
  const found: number[] = [];
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length)) found.push(i);
  return found;
}

function linesOf(text: string, offsets: number[]): number[] {
  // One pass for many offsets (sorted ascending).
  const lines: number[] = [];
  let line = 1;
  let pos = 0;
  for (const offset of offsets) {
    for (let i = text.indexOf("\n", pos); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) {
      line++;
      pos = i + 1;
    }
    lines.push(line);
  }
  return lines;
}

/**
 * Applies one edit to LF text. `old_string` must occur exactly once, or `replace_all` must be set.
 * CRLF in the model's strings is folded to LF, as the file's text is.
 */
export function applyEdit(text: string, spec: EditSpec, label: string): MatchOutcome {
  const oldString = lf(spec.old_string);
  const newString = lf(spec.new_string);
  if (oldString === "") {
    return {
      ok: false,
      code: "INVALID_INPUT",
      message: `old_string is empty but '${label}' already has content. Give the exact text to replace, or use write_file to replace the whole file.`,
    };
  }
  if (oldString === newString) {
    return {
      ok: false,
      code: "INVALID_INPUT",
      message: "old_string and new_string are identical, so there is nothing to change.",
    };
  }
  const found = occurrences(text, oldString);
  if (found.length === 0) return { ok: false, code: "NO_MATCH", message: noMatchMessage(text, oldString, label) };
  const lines = linesOf(text, found);
  if (found.length > 1 && !spec.replace_all) {
    const listed = lines.slice(0, MAX_LISTED_LINES).join(", ") + (lines.length > MAX_LISTED_LINES ? ", …" : "");
    return {
      ok: false,
      code: "AMBIGUOUS_MATCH",
      message: `old_string occurs ${found.length} times in '${label}' (at lines ${listed}). Include more surrounding lines to pick one occurrence, or set replace_all to change all ${found.length}.`,
    };
  }
  const parts: string[] = [];
  let last = 0;
  for (const offset of found) {
    parts.push(text.slice(last, offset), newString);
    last = offset + oldString.length;
  }
  parts.push(text.slice(last));
  return { ok: true, text: parts.join(""), count: found.length, lines };
}

function noMatchMessage(text: string, oldString: string, label: string): string {
  const hints: string[] = [];
  if (/^\s*\d+\t/m.test(oldString) && /^ *\d+\t/.test(oldString)) {
    hints.push("old_string seems to include read_file's line-number prefixes; leave them out.");
  }
  const collapse = (s: string) => s.replace(/\s+/g, " ").trim();
  if (collapse(oldString) !== "" && collapse(text).includes(collapse(oldString))) {
    hints.push("The text exists but with different whitespace or indentation; copy it exactly.");
  }
  const candidates = closestCandidates(text, oldString, 3);
  const shown = candidates
    .map((c) => `Lines ${c.start}-${c.end} (similarity ${Math.round(c.score * 100)}%):\n${c.text}`)
    .join("\n\n");
  return [
    `old_string was not found in '${label}'.`,
    ...hints,
    candidates.length > 0 ? `Closest text in the file:\n\n${shown}\n` : "Nothing in the file resembles it.",
    "Read the file again and copy the exact text, including whitespace, then retry.",
  ].join("\n");
}

function bigrams(s: string): Map<string, number> {
  const t = s.replace(/\s+/g, " ").trim();
  const grams = new Map<string, number>();
  for (let i = 0; i < t.length - 1; i++) {
    const g = t.slice(i, i + 2);
    grams.set(g, (grams.get(g) ?? 0) + 1);
  }
  return grams;
}

function dice(a: Map<string, number>, b: Map<string, number>, sizeA: number, sizeB: number): number {
  if (sizeA === 0 && sizeB === 0) return 1;
  if (sizeA === 0 || sizeB === 0) return 0;
  let common = 0;
  const [small, large] = a.size < b.size ? [a, b] : [b, a];
  for (const [g, n] of small) common += Math.min(n, large.get(g) ?? 0);
  return (2 * common) / (sizeA + sizeB);
}

interface Candidate {
  start: number;
  end: number;
  score: number;
  text: string;
}

const MAX_COMPARISONS = 2_000_000;

/** Windows of the file as tall as old_string, scored by line-by-line bigram similarity. */
export function closestCandidates(text: string, oldString: string, limit: number): Candidate[] {
  const fileLines = text.split("\n");
  let wanted = oldString.split("\n");
  if (fileLines.length * wanted.length > MAX_COMPARISONS)
    wanted = wanted.slice(0, Math.max(1, Math.floor(MAX_COMPARISONS / fileLines.length)));
  const want = wanted.map((line) => {
    const grams = bigrams(line);
    return { grams, size: [...grams.values()].reduce((a, b) => a + b, 0), blank: line.trim() === "" };
  });
  const scores = new Float64Array(fileLines.length);
  const fileGrams = fileLines.map((line) => {
    const grams = bigrams(line);
    return { grams, size: [...grams.values()].reduce((a, b) => a + b, 0) };
  });
  const counted = want.filter((w) => !w.blank).length || 1;
  for (const [i, w] of want.entries()) {
    if (w.blank) continue;
    for (let j = 0; j + i < fileLines.length; j++) {
      const f = fileGrams[j + i]!;
      scores[j] += dice(w.grams, f.grams, w.size, f.size) / counted;
    }
  }
  const order = [...scores.keys()].sort((a, b) => scores[b]! - scores[a]!);
  const picked: Candidate[] = [];
  const height = oldString.split("\n").length;
  for (const start of order) {
    if (picked.length >= limit || scores[start]! < 0.3) break;
    if (picked.some((c) => Math.abs(c.start - 1 - start) < height)) continue;
    const end = Math.min(fileLines.length, start + height);
    const body = fileLines
      .slice(start, end)
      .map((line, k) => `${String(start + k + 1).padStart(6)}\t${line}`)
      .join("\n");
    picked.push({ start: start + 1, end, score: scores[start]!, text: body });
  }
  return picked;
}
