import { structuredPatch } from "diff";
import type { DiffFile } from "@/lib/tool-display";
import { numberLines } from "./text-window";

/** A unified diff for the review UI, with counts of added and removed lines. */
export function diffFile(filePath: string, before: string, after: string, created: boolean): DiffFile {
  const patch = structuredPatch(
    created ? "/dev/null" : `a/${filePath}`,
    `b/${filePath}`,
    before,
    after,
    undefined,
    undefined,
    { context: 3 },
  );
  let added = 0;
  let removed = 0;
  const lines = [`--- ${patch.oldFileName}`, `+++ ${patch.newFileName}`];
  for (const hunk of patch.hunks) {
    lines.push(`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`);
    for (const line of hunk.lines) {
      if (line.startsWith("+")) added++;
      else if (line.startsWith("-")) removed++;
      lines.push(line);
    }
  }
  return { path: filePath, diff: lines.join("\n"), added, removed, created };
}

/** "+3 −1" style summary for the model, which does not need the diff it just asked for. */
export function changeSummary(file: DiffFile): string {
  return `${file.created ? "created" : "updated"} (+${file.added} −${file.removed})`;
}

/** Lines of the file after a change shown to the model, at most: a larger change shows its start. */
const SHOWN_LINES = 60;

/**
 * The changed lines of `after` with 3 lines of context, numbered as read_file numbers them, so the
 * model sees the result of its edit without reading the file again.
 */
export function changedLines(before: string, after: string, maxLines = SHOWN_LINES): string {
  const { hunks } = structuredPatch("a", "b", before, after, undefined, undefined, { context: 3 });
  const parts: string[] = [];
  let budget = maxLines;
  for (const hunk of hunks) {
    if (hunk.newLines === 0) continue;
    if (budget <= 0) {
      parts.push(`… more changes from line ${hunk.newStart} (read_file shows them)`);
      break;
    }
    const window = numberLines(after, hunk.newStart, Math.min(hunk.newLines, budget));
    budget -= window.end - hunk.newStart + 1;
    parts.push(window.text);
    if (window.end < hunk.newStart + hunk.newLines - 1)
      parts.push(`… the change goes on to line ${hunk.newStart + hunk.newLines - 1} (read_file shows the rest)`);
  }
  return parts.join("\n…\n");
}
