import { structuredPatch } from "diff";
import type { DiffFile } from "@/lib/tool-display";

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
