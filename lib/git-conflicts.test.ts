import { describe, expect, it } from "vitest";
import { countConflicts, resolveConflicts } from "./git-conflicts";

const text = [
  "# Shop",
  "<<<<<<< HEAD",
  "Mine.",
  "=======",
  "Theirs.",
  ">>>>>>> abc123",
  "tail",
  "<<<<<<< HEAD",
  "a",
  "||||||| base",
  "o",
  "=======",
  "b",
  ">>>>>>> abc123",
  "",
].join("\n");

describe("git conflict markers", () => {
  it("counts the blocks", () => {
    expect(countConflicts(text)).toBe(2);
    expect(countConflicts("no conflicts\n")).toBe(0);
  });

  it("keeps the current side, the incoming side, or both (diff3 bases dropped)", () => {
    expect(resolveConflicts(text, "current")).toBe("# Shop\nMine.\ntail\na\n");
    expect(resolveConflicts(text, "incoming")).toBe("# Shop\nTheirs.\ntail\nb\n");
    expect(resolveConflicts(text, "both")).toBe("# Shop\nMine.\nTheirs.\ntail\na\nb\n");
  });

  it("keeps CRLF line endings and leaves an unfinished block alone", () => {
    expect(resolveConflicts("x\r\n<<<<<<< HEAD\r\nm\r\n=======\r\nt\r\n>>>>>>> o\r\ny\r\n", "incoming")).toBe(
      "x\r\nt\r\ny\r\n",
    );
    const open = "x\n<<<<<<< HEAD\nm\n=======\nt\n";
    expect(resolveConflicts(open, "both")).toBe(open);
  });
});
