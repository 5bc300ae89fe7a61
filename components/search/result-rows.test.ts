import { describe, expect, it } from "vitest";
import type { FileMatches } from "@/lib/search-schemas";
import { fileKey, keptMatches, matchKey, resultRows } from "./result-rows";

const file = (path: string, lines: number[][]): FileMatches => ({
  path,
  lines: lines.map((columns, i) => ({
    line: i + 1,
    preview: "x".repeat(40),
    previewStart: 0,
    matches: columns.map((column) => ({
      ref: { line: i + 1, column, text: "x" },
      start: column - 1,
      end: column,
    })),
  })),
});

const NONE: ReadonlySet<string> = new Set();
const shape = (rows: ReturnType<typeof resultRows>["rows"]) =>
  rows.map((r) => (r.kind === "file" ? `${r.file.path} (${r.count})` : `  ${r.line.line}:${r.index}`));

describe("resultRows", () => {
  it("lists each file with its matches and counts them", () => {
    const list = resultRows(null, [file("a.ts", [[1, 5], [2]]), file("b.ts", [[3]])], NONE, NONE);
    expect(shape(list.rows)).toEqual(["a.ts (3)", "  1:0", "  1:1", "  2:0", "b.ts (1)", "  1:0"]);
    expect([list.matches, list.fileCount]).toEqual([4, 2]);
  });

  it("builds only the new files' rows while a search appends, and keeps the earlier ones", () => {
    const first = [file("a.ts", [[1]])];
    const before = resultRows(null, first, NONE, NONE);
    const appended = first.concat([file("b.ts", [[2, 4]])]);
    const after = resultRows(before, appended, NONE, NONE);
    expect(shape(after.rows)).toEqual(["a.ts (1)", "  1:0", "b.ts (2)", "  1:0", "  1:1"]);
    expect(after.rows[0]).toBe(before.rows[0]);
    expect([after.matches, after.fileCount]).toEqual([3, 2]);
    // The same list again (a render with nothing new) gives the same rows.
    expect(resultRows(after, appended, NONE, NONE).rows).toEqual(after.rows);
  });

  it("starts over for another search, even one as long as the last", () => {
    const before = resultRows(null, [file("a.ts", [[1]]), file("b.ts", [[1]])], NONE, NONE);
    const other = resultRows(before, [file("c.ts", [[1]]), file("d.ts", [[1], [2]])], NONE, NONE);
    expect(shape(other.rows)).toEqual(["c.ts (1)", "  1:0", "d.ts (2)", "  1:0", "  2:0"]);
    expect(other.matches).toBe(3);
  });

  it("leaves out what was dismissed and the matches of collapsed files, which still count", () => {
    const files = [file("a.ts", [[1, 5]]), file("b.ts", [[2]]), file("c.ts", [[7]])];
    const before = resultRows(null, files, NONE, NONE);
    const dismissed = new Set([matchKey("a.ts", { line: 1, column: 5 }), fileKey("b.ts")]);
    const list = resultRows(before, files, dismissed, new Set(["c.ts"]));
    expect(shape(list.rows)).toEqual(["a.ts (1)", "  1:0", "c.ts (1)"]);
    expect([list.matches, list.fileCount]).toEqual([2, 2]);
    expect(keptMatches(files[0]!, dismissed).map((m) => m.column)).toEqual([1]);
    expect(keptMatches(files[1]!, dismissed)).toEqual([]);
  });
});
