import { describe, expect, it } from "vitest";
import { parsePorcelainV2, statusOf } from "./status";

// A rename, a staged and changed file, an untracked name with a space and a conflict, as
// `git status --porcelain=v2 --branch -z` writes them.
const OUTPUT = [
  "# branch.oid 1234567890123456789012345678901234567890",
  "# branch.head main",
  "# branch.upstream origin/main",
  "# branch.ab +2 -1",
  "1 MM N... 100644 100644 100644 aaa bbb a.txt",
  "2 R. N... 100644 100644 100644 aaa bbb R100 new name.txt",
  "old name.txt",
  "u UU N... 100644 100644 100644 100644 aaa bbb ccc both.txt",
  "? untracked file.md",
  "",
].join("\0");

describe("parsePorcelainV2", () => {
  it("reads branch, upstream and every entry in git's order", () => {
    expect(parsePorcelainV2(OUTPUT)).toEqual({
      branch: "main",
      oid: "1234567890123456789012345678901234567890",
      upstream: "origin/main",
      ahead: 2,
      behind: 1,
      entries: [
        { kind: "tracked", xy: "MM", path: "a.txt" },
        { kind: "tracked", xy: "R.", path: "new name.txt", oldPath: "old name.txt" },
        { kind: "conflicted", xy: "UU", path: "both.txt" },
        { kind: "untracked", xy: "??", path: "untracked file.md" },
      ],
    });
  });

  it("reads a detached HEAD before the first commit", () => {
    expect(parsePorcelainV2("# branch.oid (initial)\0# branch.head (detached)\0")).toMatchObject({
      branch: null,
      oid: null,
      entries: [],
    });
  });
});

describe("statusOf", () => {
  it("splits entries into staged, changed, untracked and conflicted", () => {
    expect(statusOf(parsePorcelainV2(OUTPUT))).toMatchObject({
      staged: [
        { path: "a.txt", letter: "M" },
        { path: "new name.txt", oldPath: "old name.txt", letter: "R" },
      ],
      changed: [{ path: "a.txt", letter: "M" }],
      untracked: ["untracked file.md"],
      conflicted: [{ path: "both.txt", letter: "U" }],
    });
  });
});
