/** Which side of each git conflict to keep: ours (HEAD, "current"), theirs ("incoming"), or both. */
export type ConflictChoice = "current" | "incoming" | "both";

const START = /^<{7}(?: |$)/;
const BASE = /^\|{7}(?: |$)/;
const MIDDLE = /^={7}$/;
const END = /^>{7}(?: |$)/;

/** How many conflict blocks git left in `text` (a `<<<<<<<` line through its `>>>>>>>`). */
export function countConflicts(text: string): number {
  return text.split("\n").filter((line) => START.test(line.replace(/\r$/, ""))).length;
}

/**
 * Resolves every conflict block git wrote into a file (merge or diff3 style), keeping the chosen
 * side (or both, current first); text outside the blocks is kept as it is, line endings included.
 * A block left unfinished (no `>>>>>>>`) stays untouched.
 */
export function resolveConflicts(text: string, choice: ConflictChoice): string {
  const lines = text.split("\n");
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (!START.test(line.replace(/\r$/, ""))) {
      out.push(line);
      continue;
    }
    const current: string[] = [];
    const incoming: string[] = [];
    let part: "current" | "base" | "incoming" = "current";
    let j = i + 1;
    for (; j < lines.length; j++) {
      const l = lines[j]!.replace(/\r$/, "");
      if (part === "current" && BASE.test(l)) part = "base";
      else if (part !== "incoming" && MIDDLE.test(l)) part = "incoming";
      else if (part === "incoming" && END.test(l)) break;
      else if (part === "current") current.push(lines[j]!);
      else if (part === "incoming") incoming.push(lines[j]!);
    }
    if (j >= lines.length) {
      out.push(...lines.slice(i));
      break;
    }
    if (choice !== "incoming") out.push(...current);
    if (choice !== "current") out.push(...incoming);
    i = j;
  }
  return out.join("\n");
}
