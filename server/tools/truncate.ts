import type { OutputLimits } from "./define-tool";

export const DEFAULT_LIMITS: OutputLimits = { maxChars: 100_000, maxLines: 2_500, keep: "head" };

/** The share of the model's window one tool result may take: a 32k-token model is not sent 25k at once. */
const RESULT_SHARE = 0.15;
const MIN_RESULT_CHARS = 4_000;

/** The characters one result may have for a model with this window (in tokens, ~4 characters each). */
export function resultCharsFor(contextWindow: number): number {
  return Math.max(MIN_RESULT_CHARS, Math.floor(contextWindow * 4 * RESULT_SHARE));
}

export interface Cut {
  text: string;
  totalLines: number;
  shownLines: number;
  totalChars: number;
}

/** Keeps whole lines from one end until either limit is reached; null when nothing needs cutting. */
export function cutText(text: string, limits: OutputLimits): Cut | null {
  if (text.length <= limits.maxChars && countLines(text) <= limits.maxLines) return null;
  const lines = text.split("\n");
  const kept: string[] = [];
  let chars = 0;
  const ordered = limits.keep === "head" ? lines : [...lines].reverse();
  for (const line of ordered) {
    if (kept.length >= limits.maxLines || chars + line.length + 1 > limits.maxChars) break;
    kept.push(line);
    chars += line.length + 1;
  }
  if (kept.length === 0) {
    // One enormous line: keep part of it rather than nothing.
    const first = ordered[0] ?? "";
    kept.push(limits.keep === "head" ? first.slice(0, limits.maxChars) : first.slice(-limits.maxChars));
  }
  const shown = limits.keep === "head" ? kept : kept.reverse();
  return { text: shown.join("\n"), totalLines: lines.length, shownLines: kept.length, totalChars: text.length };
}

function countLines(text: string): number {
  let n = 1;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) n++;
  return n;
}

export function cutNote(cut: Cut, keep: OutputLimits["keep"], fullPath: string | undefined): string {
  const which = keep === "head" ? "first" : "last";
  const what =
    cut.shownLines < cut.totalLines
      ? `showing the ${which} ${cut.shownLines} of ${cut.totalLines} lines`
      : `showing the ${which} ${cut.text.length} of ${cut.totalChars} characters`;
  const where = fullPath
    ? ` The complete output is in '${fullPath}': read parts of it with read_file (offset, limit) or search it with grep.`
    : " Narrow the request (a smaller range, a more specific pattern) to see the rest.";
  return `[Output cut: ${what}.${where}]`;
}
