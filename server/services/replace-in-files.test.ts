import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FileChange } from "@/lib/fs-schemas";
import { findQuerySchema, type FindQueryInput } from "@/lib/search-schemas";
import { appRouter } from "@/server/api/root";
import { createCallerFactory } from "@/server/api/trpc";
import { createTestServices } from "@/server/test/services";
import { versionOf, watchWorkspace } from "@/server/workspace";
import { applyReplacements, matchesIn } from "./replace-in-files";

const q = (query: FindQueryInput) => findQuerySchema.parse(query);

describe("replacement text", () => {
  it("expands $1 and $<name> in regex mode and keeps `$` literal otherwise", () => {
    const content = "let a = foo(1);\nfoo(22)\n";
    const all = (query: FindQueryInput, replacement: string) => {
      const refs = matchesIn(content, q(query), replacement).map((f) => f.ref);
      return applyReplacements(content, q(query), replacement, refs).content;
    };
    expect(all({ pattern: "foo\\((\\d+)\\)", isRegex: true }, "bar($1, $1)")).toBe("let a = bar(1, 1);\nbar(22, 22)\n");
    expect(all({ pattern: "foo\\((?<n>\\d+)\\)", isRegex: true }, "n=$<n>")).toBe("let a = n=1;\nn=22\n");
    expect(all({ pattern: "foo(1)" }, "$1")).toBe("let a = $1;\nfoo(22)\n");
  });

  it("replaces only the kept matches, and reports kept matches that moved", () => {
    const content = "x x\nx\n";
    const refs = matchesIn(content, q({ pattern: "x" }), "y").map((f) => f.ref);
    expect(refs.map((r) => `${r.line}:${r.column}`)).toEqual(["1:1", "1:3", "2:1"]);
    expect(applyReplacements(content, q({ pattern: "x" }), "y", [refs[1]!])).toMatchObject({
      content: "x y\nx\n",
      replaced: 1,
      missing: [],
    });
    expect(applyReplacements("x\nx x\n", q({ pattern: "x" }), "y", [refs[1]!]).missing).toEqual([refs[1]]);
  });

  it("keeps CRLF line endings and counts columns per line", () => {
    const content = "ab\r\nab\r\n";
    const refs = matchesIn(content, q({ pattern: "b", matchCase: true }), "c").map((f) => f.ref);
    expect(refs).toEqual([
      { line: 1, column: 2, text: "b" },
      { line: 2, column: 2, text: "b" },
    ]);
    expect(applyReplacements(content, q({ pattern: "b" }), "c", refs).content).toBe("ac\r\nac\r\n");
  });
});

describe("search.replace", () => {
  const createCaller = createCallerFactory(appRouter);
  let env: Awaited<ReturnType<typeof createTestServices>>;
  let caller: ReturnType<typeof createCaller>;
  let projectId: string;
  let root: string;

  beforeAll(async () => {
    env = await createTestServices();
    caller = createCaller(env.context(await env.createUser()));
    projectId = (await caller.project.create({ name: "Replace" })).id;
    root = env.services.files.pathOf(projectId);
  });
  afterAll(() => env.dispose());

  const collect = async (query: FindQueryInput) => {
    const files = [];
    for await (const event of await caller.search.find({ projectId, ...query }))
      if (event.type === "files") files.push(...event.files);
    return files
      .map((f) => ({ path: f.path, matches: f.lines.flatMap((l) => l.matches.map((m) => m.ref)) }))
      .sort((a, b) => a.path.localeCompare(b.path));
  };

  it("writes through the workspace: the watcher reports each file with its new version, a changed file is left alone", async () => {
    for (const name of ["a.ts", "b.ts", "c.ts"])
      await caller.fs.create({
        projectId,
        path: `src/${name}`,
        content: `import { oldName } from "./lib";\noldName(); // oldName\n`,
        createParents: true,
      });
    const query = { pattern: "oldName", matchCase: true, wholeWord: true };
    const found = await collect(query);
    expect(found.map((f) => f.path)).toEqual(["src/a.ts", "src/b.ts", "src/c.ts"]);

    const preview = await caller.search.previewReplace({
      projectId,
      query,
      replacement: "newName",
      path: "src/a.ts",
      matches: found[0]!.matches,
    });
    expect(preview.diff).toContain("-oldName(); // oldName");
    expect(preview.diff).toContain("+newName(); // newName");
    expect(await readFile(path.join(root, "src/a.ts"), "utf8")).toContain("oldName"); // a preview writes nothing

    const controller = new AbortController();
    const changes: FileChange[] = [];
    let ready!: () => void;
    const watching = new Promise<void>((resolve) => (ready = resolve));
    const watcher = (async () => {
      for await (const change of watchWorkspace(root, { signal: controller.signal, onReady: ready }))
        changes.push(change);
    })();
    await watching;

    // Someone edits c.ts after the search: its matches moved, so it must not be touched.
    await writeFile(path.join(root, "src/c.ts"), `// moved\nimport { oldName } from "./lib";\n`);
    const keepSecondOnly = found[1]!.matches.filter((m) => m.line === 2);
    const results = await caller.search.replace({
      projectId,
      query,
      replacement: "newName",
      files: [found[0]!, { path: "src/b.ts", matches: keepSecondOnly }, found[2]!],
    });
    expect(results).toEqual([
      { path: "src/a.ts", ok: true, replaced: 3 },
      { path: "src/b.ts", ok: true, replaced: 2 },
      expect.objectContaining({ path: "src/c.ts", ok: false, code: "CONFLICT" }),
    ]);
    const a = await readFile(path.join(root, "src/a.ts"), "utf8");
    expect(a).toBe(`import { newName } from "./lib";\nnewName(); // newName\n`);
    expect(await readFile(path.join(root, "src/b.ts"), "utf8")).toBe(
      `import { oldName } from "./lib";\nnewName(); // newName\n`,
    );
    expect(await readFile(path.join(root, "src/c.ts"), "utf8")).toBe(`// moved\nimport { oldName } from "./lib";\n`);

    await expect
      .poll(() => changes.find((c) => c.path === "src/a.ts" && c.version === versionOf(Buffer.from(a))))
      .toBeTruthy();
    controller.abort();
    await watcher;
  });

  it("refuses a bad regex and a path outside the workspace", async () => {
    await expect(
      caller.search.replace({
        projectId,
        query: { pattern: "(", isRegex: true },
        replacement: "x",
        files: [{ path: "src/a.ts", matches: [{ line: 1, column: 1, text: "(" }] }],
      }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST" });
    const outside = await caller.search.replace({
      projectId,
      query: { pattern: "root" },
      replacement: "x",
      files: [{ path: "../../etc/passwd", matches: [{ line: 1, column: 1, text: "root" }] }],
    });
    expect(outside).toEqual([
      expect.objectContaining({
        ok: false,
        code: "FAILED",
        message: expect.stringMatching(/climbs out of the workspace/),
      }),
    ]);
  });
});
