import { describe, expect, it } from "vitest";
import { highlightRuns, rankFiles } from "./quick-open";

const FILES = [
  "README.md",
  "package.json",
  "src/app/main.ts",
  "src/app/maintenance/notice.ts",
  "src/lib/math.ts",
  "src/lib/format.ts",
  "test/math.test.ts",
  "docs/guide/managing-teams.md",
];

describe("quick open", () => {
  it("finds a file from the letters of its name in order, best match first", () => {
    expect(rankFiles(FILES, "math")[0]!.path).toBe("src/lib/math.ts");
    expect(rankFiles(FILES, "math").map((m) => m.path)).toContain("test/math.test.ts");
    expect(rankFiles(FILES, "appmain")[0]!.path).toBe("src/app/main.ts");
    expect(rankFiles(FILES, "mts")[0]!.path).not.toBe("README.md");
    expect(rankFiles(FILES, "zzz")).toEqual([]);
  });

  it("ignores spaces in the query and caps the list", () => {
    expect(rankFiles(FILES, "lib  fmt")[0]!.path).toBe("src/lib/format.ts");
    expect(rankFiles(FILES, "s", { limit: 3 })).toHaveLength(3);
  });

  it("lists recently opened files first when nothing is typed, and only files that still exist", () => {
    const shown = rankFiles(FILES, "  ", { recent: ["src/lib/format.ts", "gone.ts"], limit: 3 }).map((m) => m.path);
    expect(shown).toEqual(["src/lib/format.ts", "README.md", "package.json"]);
  });

  it("reports which letters matched, for highlighting", () => {
    const [match] = rankFiles(["src/lib/math.ts"], "math");
    expect(match!.positions).toEqual([8, 9, 10, 11]);
    expect(highlightRuns("math.ts", match!.positions, 8)).toEqual([
      { text: "math", hit: true },
      { text: ".ts", hit: false },
    ]);
  });
});
