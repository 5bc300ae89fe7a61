import { describe, expect, it } from "vitest";
import { applyHunk, computeHunks, isText, revertHunk } from "./checkpoint-hunks";

const lines = (count: number, edit: Record<number, string> = {}, eol = "\n") =>
  Array.from({ length: count }, (_, i) => edit[i + 1] ?? `line ${i + 1}`).join(eol) + eol;

describe("hunks", () => {
  const base = Buffer.from(lines(40));
  const current = Buffer.from(lines(40, { 5: "five!", 20: "twenty!", 35: "thirty-five!" }));

  it("finds separate regions as separate hunks", () => {
    const hunks = computeHunks(base, current);
    expect(hunks.map((h) => [h.index, h.oldStart, h.newStart])).toEqual([
      [0, 2, 2],
      [1, 17, 17],
      [2, 32, 32],
    ]);
    expect(hunks[1]!.lines).toContain("-line 20");
    expect(hunks[1]!.lines).toContain("+twenty!");
  });

  it("reverts one hunk and keeps the others", () => {
    expect(revertHunk(base, current, 1).toString()).toBe(lines(40, { 5: "five!", 35: "thirty-five!" }));
    expect(revertHunk(base, current, 0).toString()).toBe(lines(40, { 20: "twenty!", 35: "thirty-five!" }));
  });

  it("applies one hunk to the base", () => {
    expect(applyHunk(base, current, 2).toString()).toBe(lines(40, { 35: "thirty-five!" }));
  });

  it("handles insertions at the start, deletions at the end and a missing final newline", () => {
    const before = Buffer.from("a\nb\nc");
    const after = Buffer.from("new\na\nb\n");
    const hunks = computeHunks(before, after);
    expect(hunks).toHaveLength(1);
    expect(revertHunk(before, after, 0).equals(before)).toBe(true);
    expect(applyHunk(before, after, 0).equals(after)).toBe(true);
  });

  it("treats a file created from nothing as one hunk", () => {
    const after = Buffer.from("x\ny\n");
    expect(computeHunks(Buffer.alloc(0), after)).toHaveLength(1);
    expect(revertHunk(Buffer.alloc(0), after, 0).length).toBe(0);
  });

  it("keeps CRLF line endings and bytes that are not UTF-8 exactly", () => {
    const before = Buffer.concat([Buffer.from(lines(20, {}, "\r\n")), Buffer.from([0xff, 0xfe, 0x0a])]);
    const after = Buffer.concat([
      Buffer.from(lines(20, { 2: "two", 18: "eighteen" }, "\r\n")),
      Buffer.from([0xfe, 0x0a]),
    ]);
    const hunks = computeHunks(before, after);
    expect(hunks).toHaveLength(2);
    const reverted = revertHunk(before, after, 1);
    expect(
      reverted.equals(Buffer.concat([Buffer.from(lines(20, { 2: "two" }, "\r\n")), Buffer.from([0xff, 0xfe, 0x0a])])),
    ).toBe(true);
  });

  it("calls a buffer with a NUL byte binary", () => {
    expect(isText(Buffer.from("plain\n"))).toBe(true);
    expect(isText(Buffer.from([1, 0, 2]))).toBe(false);
  });
});
