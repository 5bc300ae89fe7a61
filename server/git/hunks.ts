// A patch holding one hunk of a file's `git diff`: the file's header lines, then the hunk as git
// wrote it. Cut from git's own text rather than rebuilt by a diff library, so `git apply` gets
// bytes (and "\ No newline" lines) exactly as git produced them.
export function hunkPatch(diff: string, hunkIndex: number): string | null {
  const lines = diff.split("\n");
  const starts = lines.flatMap((line, i) => (line.startsWith("@@ ") ? [i] : []));
  if (starts.length === 0 || hunkIndex < 0 || hunkIndex >= starts.length) return null;
  const header = lines.slice(0, starts[0]);
  const end = starts[hunkIndex + 1] ?? (lines.at(-1) === "" ? lines.length - 1 : lines.length);
  return `${[...header, ...lines.slice(starts[hunkIndex], end)].join("\n")}\n`;
}

/** How many hunks a diff has. */
export const hunkCount = (diff: string) => diff.split("\n").filter((line) => line.startsWith("@@ ")).length;
