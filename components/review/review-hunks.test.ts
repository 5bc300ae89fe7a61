import { describe, expect, it } from "vitest";
import { changedLines, changeStart, type ReviewHunk } from "./review-hunks";

const hunk = (newStart: number, lines: string[]): ReviewHunk => ({
  index: 0,
  oldStart: newStart,
  oldLines: lines.filter((l) => !l.startsWith("+")).length,
  newStart,
  newLines: lines.filter((l) => !l.startsWith("-")).length,
  lines,
});

describe("changedLines", () => {
  it("marks a replaced line as modified, an inserted one as added, and nothing else", () => {
    const edited = hunk(1, [
      "-export function add(a, b) {",
      "+export function add(a, b): number {",
      "   return a + b;",
      " }",
    ]);
    const inserted = hunk(11, [
      " }",
      " ",
      " export function divide(a, b) {",
      "+  if (b === 0) throw new RangeError();",
      "   return a / b;",
      " }",
    ]);
    expect(changedLines([edited, inserted])).toEqual([
      { line: 1, kind: "modified" },
      { line: 14, kind: "added" },
    ]);
  });

  it("marks where lines were only removed, after the line before them", () => {
    expect(changedLines([hunk(4, [" a", " b", "-gone", "-also gone", " c"])])).toEqual([{ line: 5, kind: "deleted" }]);
    expect(changedLines([hunk(1, ["-first", " second"])])).toEqual([{ line: 1, kind: "deleted" }]);
  });

  it("finds where a hunk's change starts past its context", () => {
    expect(changeStart(hunk(11, [" }", " ", " x", "+y", " z"]))).toBe(14);
    expect(changeStart(hunk(1, ["-a", "+b"]))).toBe(1);
  });
});
