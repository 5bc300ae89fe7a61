import { describe, expect, it } from "vitest";
import { highlightRuns, PathIndex } from "./quick-open";

const rankFiles = (files: string[], query: string, options?: Parameters<PathIndex["rank"]>[1]) =>
  new PathIndex(files).rank(query, options);

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

  it("ranks as a fresh index would while a query grows key by key, and after files come and go", () => {
    const index = new PathIndex(FILES);
    for (const query of ["m", "ma", "mat", "math", "matht"])
      expect(index.rank(query)).toEqual(new PathIndex(FILES).rank(query));
    index.apply([
      { type: "add", path: "src/lib/mathematics.ts" },
      { type: "unlink", path: "test/math.test.ts" },
      { type: "unlinkDir", path: "src/app" },
      { type: "change", path: "README.md" },
    ]);
    const now = ["README.md", "package.json", "src/lib/math.ts", "src/lib/format.ts", "docs/guide/managing-teams.md"];
    expect(index.rank("math").map((m) => m.path)).toEqual(
      new PathIndex([...now, "src/lib/mathematics.ts"]).rank("math").map((m) => m.path),
    );
    expect(index.rank("appmain")).toEqual([]);
    expect(index.size).toBe(6);
  });

  it("narrows as a fresh index would when a capital makes the query case-sensitive, or a letter has an accent", () => {
    const files = [
      "src/actualApply.ts",
      "src/actual-apply.ts",
      "src/ActualApply.ts",
      "lib/factual/applied.ts",
      "docs/Résumé.md",
      "docs/resume.md",
    ];
    const index = new PathIndex(files);
    for (const query of ["a", "act", "actual", "actualA", "actualAp", "actualApply"])
      expect(index.rank(query)).toEqual(new PathIndex(files).rank(query));
    expect(index.rank("actualA").map((m) => m.path)).toEqual(["src/actualApply.ts"]);
    for (const query of ["r", "re", "res", "resu", "résu", "résumé"])
      expect(index.rank(query)).toEqual(new PathIndex(files).rank(query));
    expect(index.rank("resume").map((m) => m.path)).toHaveLength(2); // "e" finds "é"
    expect(index.rank("R").map((m) => m.path)).toEqual(["docs/Résumé.md"]);
  });

  it("finds a file by its name among 30,000 paths, whatever a short query matches first", () => {
    const paths = Array.from({ length: 30_000 }, (_, i) => `packages/pkg-${i % 300}/src/module-${i}.ts`);
    paths.push("packages/pkg-137/src/needle-in-haystack.ts");
    const index = new PathIndex(paths);
    let shown = index.rank("n");
    for (const query of ["ne", "nee", "needle", "needlehay"]) shown = index.rank(query);
    expect(shown[0]!.path).toBe("packages/pkg-137/src/needle-in-haystack.ts");
    // A letter that nearly every path holds still lists the likeliest: names that start with it.
    expect(index.rank("m")[0]!.path).toMatch(/\/module-\d+\.ts$/);
    expect(index.rank("needle")[0]!.positions).toEqual([21, 22, 23, 24, 25, 26]);
  });
});
