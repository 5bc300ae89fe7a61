// Hunks as the review API gives them (server/workspace/checkpoint-hunks.ts), and what the UI
// derives from them: where each change starts, and which lines of the current file it touched.

import type { LineMark } from "@/components/editor/line-marks";

/** A change being rejected or accepted right now (its request is on its way). */
export type HunkWork = { action: "reject" | "accept"; index: number };

export type ReviewHunk = {
  index: number;
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: string[];
};

/** Lines of the current file that hunks added or changed, and where lines were only removed. */
export function changedLines(hunks: readonly ReviewHunk[]): LineMark[] {
  const marks: LineMark[] = [];
  for (const hunk of hunks) {
    let line = hunk.newStart;
    // A run of changes: removed lines, then added ones. Added lines after removed ones are "modified".
    let removed = 0;
    let added = 0;
    const endRun = () => {
      if (removed > 0 && added === 0) marks.push({ line: Math.max(1, line - 1), kind: "deleted" });
      removed = 0;
      added = 0;
    };
    for (const text of hunk.lines) {
      if (text.startsWith("-")) {
        removed += 1;
      } else if (text.startsWith("+")) {
        marks.push({ line, kind: removed > 0 ? "modified" : "added" });
        added += 1;
        line += 1;
      } else if (!text.startsWith("\\")) {
        endRun();
        line += 1;
      }
    }
    endRun();
  }
  return marks;
}

/** The first line of the current file the hunk changes (past its leading context); 0 before line 1. */
export function changeStart(hunk: ReviewHunk): number {
  const context = hunk.lines.findIndex((l) => l.startsWith("+") || l.startsWith("-"));
  return hunk.newStart + Math.max(0, context) - (hunk.newLines === 0 ? 1 : 0);
}

export function hunkCounts(hunk: ReviewHunk): { added: number; removed: number } {
  return {
    added: hunk.lines.filter((l) => l.startsWith("+")).length,
    removed: hunk.lines.filter((l) => l.startsWith("-")).length,
  };
}
