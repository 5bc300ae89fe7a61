import { describe, expect, it } from "vitest";
import { diffFile } from "@/server/tools/diff-display";
import { diffLinesForDisplay } from "./diff-lines";

// Diffs as the edit tools make them.
const patch = (before: string, after: string) => diffFile("a.ts", before, after, false).diff;

describe("diffLinesForDisplay", () => {
  it("shows the hunk and its lines without headers", () => {
    expect(diffLinesForDisplay(patch("one\ntwo\n", "one\nTWO\n"))).toEqual([
      { kind: "hunk", text: "@@ -1,2 +1,2 @@" },
      { kind: "context", text: " one" },
      { kind: "del", text: "-two" },
      { kind: "add", text: "+TWO" },
    ]);
  });

  it("says nothing about a final newline that neither side has", () => {
    const lines = diffLinesForDisplay(patch('export const a = "x";', 'export const a = "y";'));
    expect(lines.map((l) => l.kind)).toEqual(["hunk", "del", "add"]);
  });

  it("notes when the change removes or adds the final newline", () => {
    const note = (before: string, after: string) =>
      diffLinesForDisplay(patch(before, after)).filter((l) => l.kind === "note");
    expect(note("one\n", "one")).toEqual([{ kind: "note", text: "No newline at end of file" }]);
    expect(note("one", "one\n")).toEqual([{ kind: "note", text: "Newline at end of file added" }]);
  });
});
