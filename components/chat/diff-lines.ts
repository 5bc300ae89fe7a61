export type DiffLine = { kind: "hunk" | "add" | "del" | "context" | "note"; text: string };

const NO_NEWLINE = "\\ No newline at end of file";

/**
 * The lines of a unified diff as shown in a tool card: without the ---/+++ headers, and with
 * "\ No newline at end of file" only where the change adds or removes the final newline (one side
 * has it, the other does not); where neither side ends with one it says nothing about the change.
 */
export function diffLinesForDisplay(diff: string): DiffLine[] {
  const raw = diff.split("\n").filter((line) => !line.startsWith("--- ") && !line.startsWith("+++ "));
  const noNewline = { del: false, add: false };
  raw.forEach((line, i) => {
    if (line !== NO_NEWLINE) return;
    const before = raw[i - 1] ?? "";
    if (before.startsWith("-")) noNewline.del = true;
    else if (before.startsWith("+")) noNewline.add = true;
    else noNewline.del = noNewline.add = true;
  });
  const meaningful = noNewline.del !== noNewline.add;
  const lines: DiffLine[] = [];
  for (const line of raw) {
    if (line === NO_NEWLINE) {
      if (meaningful)
        lines.push({
          kind: "note",
          text: noNewline.add ? "No newline at end of file" : "Newline at end of file added",
        });
      continue;
    }
    const kind = line.startsWith("@@")
      ? "hunk"
      : line.startsWith("+")
        ? "add"
        : line.startsWith("-")
          ? "del"
          : "context";
    lines.push({ kind, text: line });
  }
  return lines.at(-1)?.text === "" ? lines.slice(0, -1) : lines;
}
