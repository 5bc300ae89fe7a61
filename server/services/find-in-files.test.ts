import { mkdir, readdir, readlink, realpath, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { findQuerySchema, type FileMatches, type FindEvent, type FindQueryInput } from "@/lib/search-schemas";
import { useTempDirs } from "@/server/test/temp-dirs";
import { findInFiles } from "./find-in-files";

const tempDir = useTempDirs();

async function tree(files: Record<string, string>): Promise<string> {
  const root = await tempDir();
  for (const [name, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, name)), { recursive: true });
    await writeFile(path.join(root, name), content);
  }
  return root;
}

async function collect(root: string, query: FindQueryInput, maxMatches?: number) {
  const events: FindEvent[] = [];
  for await (const event of findInFiles(root, findQuerySchema.parse(query), {
    signal: new AbortController().signal,
    maxMatches,
  }))
    events.push(event);
  const files = events.flatMap((e) => (e.type === "files" ? e.files : [])).sort((a, b) => a.path.localeCompare(b.path));
  return { events, files, last: events.at(-1)! };
}

/** How many processes run with `dir` as their working directory (rg runs in the workspace root). */
async function processesIn(dir: string): Promise<number> {
  const real = await realpath(dir);
  const pids = (await readdir("/proc")).filter((name) => /^\d+$/.test(name));
  const cwds = await Promise.all(pids.map((pid) => readlink(`/proc/${pid}/cwd`).catch(() => null)));
  return cwds.filter((cwd) => cwd === real).length;
}

const paths = (files: FileMatches[]) => files.map((f) => f.path);

describe("findInFiles", () => {
  it("finds literal text case-insensitively by default, grouped by file with line, column and highlight", async () => {
    const root = await tree({
      "a.txt": "Foo bar\nnothing\nfoo.foo\n",
      "src/b.ts": "const x = 'FOO';\n",
      "c.md": "no match\n",
    });
    const { files, last } = await collect(root, { pattern: "foo" });
    expect(paths(files)).toEqual(["a.txt", "src/b.ts"]);
    const a = files[0]!;
    expect(a.lines.map((l) => l.line)).toEqual([1, 3]);
    expect(a.lines[1]!.matches.map((m) => m.ref)).toEqual([
      { line: 3, column: 1, text: "foo" },
      { line: 3, column: 5, text: "foo" },
    ]);
    expect(a.lines[0]!.preview.slice(a.lines[0]!.matches[0]!.start, a.lines[0]!.matches[0]!.end)).toBe("Foo");
    expect(last).toMatchObject({ type: "done", files: 2, matches: 4, limitHit: false });
  });

  it("honours match case, whole word, regex and literal dots", async () => {
    const root = await tree({ "a.txt": "Foo food foo\nf.o fxo\n" });
    const refs = async (query: FindQueryInput) =>
      (await collect(root, query)).files.flatMap((f) => f.lines.flatMap((l) => l.matches.map((m) => m.ref.text)));
    expect(await refs({ pattern: "Foo", matchCase: true })).toEqual(["Foo"]);
    expect(await refs({ pattern: "foo", wholeWord: true })).toEqual(["Foo", "foo"]);
    expect(await refs({ pattern: "f.o" })).toEqual(["f.o"]);
    expect(await refs({ pattern: "f.o", isRegex: true })).toEqual(["Foo", "foo", "foo", "f.o", "fxo"]);
  });

  it("filters by include and exclude globs, and searches ignored files only when asked", async () => {
    const root = await tree({
      ".gitignore": "node_modules/\n",
      "src/a.ts": "needle\n",
      "src/a.test.ts": "needle\n",
      "docs/n.md": "needle\n",
      "node_modules/pkg/index.js": "needle\n",
      ".git/config": "needle\n",
    });
    expect(paths((await collect(root, { pattern: "needle" })).files)).toEqual([
      "docs/n.md",
      "src/a.test.ts",
      "src/a.ts",
    ]);
    expect(
      paths((await collect(root, { pattern: "needle", include: "src/**, *.md", exclude: "*.test.ts" })).files),
    ).toEqual(["docs/n.md", "src/a.ts"]);
    expect(paths((await collect(root, { pattern: "needle", includeIgnored: true })).files)).toEqual([
      "docs/n.md",
      "node_modules/pkg/index.js",
      "src/a.test.ts",
      "src/a.ts",
    ]);
  });

  it("counts columns in UTF-16 and cuts long lines to a window around the match", async () => {
    const root = await tree({
      "u.txt": "naïve 😀 needle\n",
      "long.js": `${"x".repeat(5000)}needle${"y".repeat(5000)}\n`,
    });
    const { files } = await collect(root, { pattern: "needle" });
    const long = files.find((f) => f.path === "long.js")!.lines[0]!;
    expect(long.preview.length).toBeLessThanOrEqual(250);
    expect(long.previewStart + long.matches[0]!.start).toBe(5000);
    expect(long.preview.slice(long.matches[0]!.start, long.matches[0]!.end)).toBe("needle");
    expect(long.matches[0]!.ref.column).toBe(5001);
    const u = files.find((f) => f.path === "u.txt")!.lines[0]!;
    expect(u.matches[0]!.ref.column).toBe("naïve 😀 ".length + 1);
  });

  it("reads minified lines of any length exactly: UTF-16 columns and previews across escapes and non-ASCII", async () => {
    const piece = 'a="é\\"q\t😀\u0001";b=`ü`;';
    const line = `${piece.repeat(600)}needle${piece.repeat(300)}NEEDLE😀needle${"\u0002x".repeat(10)}needle`;
    const root = await tree({ "min.js": `${line}\nshort needle line\n` });
    const { files } = await collect(root, { pattern: "needle" });
    const [long, short] = files[0]!.lines;
    const expected = [...line.matchAll(/needle/gi)].map((m) => ({ line: 1, column: m.index + 1, text: m[0] }));
    expect(long!.matches.map((m) => m.ref)).toEqual(expected);
    expect(long!.preview.slice(long!.matches[0]!.start, long!.matches[0]!.end)).toBe("needle");
    expect(line.slice(long!.previewStart, long!.previewStart + long!.preview.length)).toBe(long!.preview);
    expect(short!.matches[0]!.ref).toEqual({ line: 2, column: 7, text: "needle" });
  });

  it("reads long ASCII lines exactly: their offsets are their columns, escapes, control characters and the source's own \\u escapes included", async () => {
    const piece = 'x="a\\"b\t\u0001";y=\'\\\\\';z="\\u00e9\\ud83d\\ude00";';
    const line = `${piece.repeat(1200)}needle${piece.repeat(50)}Needle\u001fneedle`;
    const root = await tree({ "min.js": `${line}\n` });
    const { files } = await collect(root, { pattern: "needle" });
    const [long] = files[0]!.lines;
    expect(long!.matches.map((m) => m.ref)).toEqual(
      [...line.matchAll(/needle/gi)].map((m) => ({ line: 1, column: m.index + 1, text: m[0] })),
    );
    expect(line.slice(long!.previewStart, long!.previewStart + long!.preview.length)).toBe(long!.preview);
    expect(long!.preview.slice(long!.matches[0]!.start, long!.matches[0]!.end)).toBe("needle");
  });

  it("reads long lines exactly wherever escapes, non-ASCII characters and matches fall against the stretches they are read in", async () => {
    // JSON text is read in 16 KiB stretches: matches, escapes and multi-byte characters are put
    // on and around the stretch boundaries at every small shift, in ASCII and non-ASCII lines.
    const lines: string[] = [];
    for (let shift = 0; shift < 12; shift++) {
      const pad = "q".repeat(shift);
      const ascii = `${pad}${'w="\\"\t\u0001";'.repeat(1400)}needle${"z".repeat(16_380 - shift)}"needle\\"needle`;
      const wide = `${pad}${"k".repeat(16_370)}é😀"needle${'v="é\\";'.repeat(2100)}\u0002Needle`;
      lines.push(ascii, wide);
    }
    const root = await tree({ "min.js": `${lines.join("\n")}\n` });
    const { files } = await collect(root, { pattern: "needle" });
    const found = files[0]!.lines;
    expect(found.map((l) => l.line)).toEqual(lines.map((_, i) => i + 1));
    for (const [i, line] of lines.entries()) {
      const match = found[i]!;
      expect(match.matches.map((m) => m.ref)).toEqual(
        [...line.matchAll(/needle/gi)].map((m) => ({ line: i + 1, column: m.index + 1, text: m[0] })),
      );
      expect(line.slice(match.previewStart, match.previewStart + match.preview.length)).toBe(match.preview);
      expect(match.preview.slice(match.matches[0]!.start, match.matches[0]!.end).toLowerCase()).toBe("needle");
    }
  });

  it("reads lines longer than its read buffer whole, with the lines around them", async () => {
    const huge = `${"é=".repeat(400_000)}needle${'s="\\"+x;'.repeat(300_000)}NEEDLE`;
    const root = await tree({ "big.js": `needle first\n${huge}\nlast needle\n` });
    const { files } = await collect(root, { pattern: "needle" });
    const lines = files[0]!.lines;
    expect(lines.map((l) => l.line)).toEqual([1, 2, 3]);
    expect(lines[1]!.matches.map((m) => m.ref)).toEqual(
      [...huge.matchAll(/needle/gi)].map((m) => ({ line: 2, column: m.index + 1, text: m[0] })),
    );
    expect(lines[2]!.matches[0]!.ref).toEqual({ line: 3, column: 6, text: "needle" });
  });

  it("reads megabytes of results exactly, in batches", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 20; i++)
      files[`f${i}.txt`] = Array.from({ length: 1500 }, (_, n) => `line ${n} needle ${"x".repeat(n % 90)}`).join("\n");
    const root = await tree(files);
    const { events, files: found, last } = await collect(root, { pattern: "needle" }, 1_000_000);
    expect(events.filter((e) => e.type === "files").length).toBeGreaterThan(1);
    expect(found.map((f) => f.lines.length)).toEqual(Array(20).fill(1500));
    expect(found[7]!.lines[1234]!.matches[0]!.ref).toEqual({ line: 1235, column: 11, text: "needle" });
    expect(last).toMatchObject({ type: "done", files: 20, matches: 30_000 });
  });

  it("stops at the limit and says there are more", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 50; i++) files[`f${i}.txt`] = "hit hit\nhit\n";
    const root = await tree(files);
    const { files: found, last } = await collect(root, { pattern: "hit" }, 25);
    expect(found.flatMap((f) => f.lines.flatMap((l) => l.matches)).length).toBe(25);
    expect(last).toMatchObject({ type: "done", matches: 25, limitHit: true });
  });

  it("reports an invalid regular expression in words", async () => {
    const root = await tree({ "a.txt": "x\n" });
    const { last } = await collect(root, { pattern: "(unclosed", isRegex: true });
    expect(last.type).toBe("error");
    expect(last.type === "error" && last.message).toMatch(/not a valid regular expression/);
  });

  it("says the search failed when rg cannot start, rather than that nothing matched", async () => {
    const root = await tree({ "a.txt": "x\n" });
    const { last } = await collect(path.join(root, "gone"), { pattern: "x" });
    expect(last.type).toBe("error");
    expect(last.type === "error" && last.message).toMatch(/^The search failed: .*ENOENT/);
  });

  it("kills rg when the search is cancelled mid-stream", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 2000; i++) files[`d${i % 20}/f${i}.txt`] = "hit\n".repeat(20);
    const root = await tree(files);
    const controller = new AbortController();
    const search = findInFiles(root, findQuerySchema.parse({ pattern: "hit" }), {
      signal: controller.signal,
      maxMatches: 1_000_000,
    });
    const first = await search.next();
    expect(first.value).toMatchObject({ type: "files" });
    expect(await processesIn(root)).toBeGreaterThan(0);
    controller.abort();
    await search.return(undefined);
    expect((await search.next()).done).toBe(true);
    await expect.poll(() => processesIn(root), { timeout: 2000 }).toBe(0);
  });
});
