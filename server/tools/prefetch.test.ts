import { mkdir, symlink, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useToolSessions } from "@/server/test/tool-session";
import { until } from "@/server/test/until";
import { createPrefetcher, importedPaths } from "./prefetch";
import { readFileTool } from "./read-file";

const session = useToolSessions();

async function project(files: Record<string, string>) {
  const prefetch = createPrefetcher();
  const s = await session({ prefetch });
  for (const [name, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(s.root, name)), { recursive: true });
    await writeFile(path.join(s.root, name), text);
  }
  return { ...s, prefetch };
}

describe("prefetching what the agent reads next", () => {
  it("names the candidates of relative imports (ESM, require, dynamic, Python), never outside", () => {
    const ts =
      'import { a } from "./a";\nimport b from "../lib/b.js";\nconst c = require("./c.cjs");\nawait import("./d");\nimport "react";\nimport x from "../../../../etc/passwd";\n';
    const paths = importedPaths("src/app/main.ts", ts);
    expect(paths).toEqual(
      expect.arrayContaining(["src/app/a.ts", "src/app/a.tsx", "src/app/a/index.ts", "src/lib/b.js", "src/lib/b.ts"]),
    );
    expect(paths).toContain("src/app/c.cjs");
    expect(paths).toContain("src/app/d.ts");
    expect(paths.some((p) => p.includes("react") || p.includes("etc/passwd"))).toBe(false);
    expect(importedPaths("pkg/mod/run.py", "from .util import x\nfrom ..core.base import y\n")).toEqual([
      "pkg/mod/util.py",
      "pkg/core/base.py",
    ]);
    expect(importedPaths("README.md", 'import x from "./y"')).toEqual([]);
  });

  it("a read of a file's import after reading the file is served from the prefetch, with the same result", async () => {
    const s = await project({
      "src/main.ts": 'import { helper } from "./helper";\nhelper();\n',
      "src/helper.ts": "export function helper() {}\n",
    });
    await s.run(readFileTool, { path: "src/main.ts" });
    await until(() => s.prefetch.stats().prefetched >= 1, "the import is prefetched", 5_000);
    const run = await s.run(readFileTool, { path: "src/helper.ts" });
    expect(run.llm).toContain("export function helper() {}");
    expect(s.prefetch.stats()).toMatchObject({ hits: 1 });
  });

  it("a file changed after it was prefetched is read again from disk", async () => {
    const s = await project({ "a.ts": 'import "./b";\n', "b.ts": "old\n" });
    await s.run(readFileTool, { path: "a.ts" });
    await until(() => s.prefetch.stats().prefetched >= 1, "the import is prefetched", 5_000);
    await writeFile(path.join(s.root, "b.ts"), "new\n");
    await utimes(path.join(s.root, "b.ts"), new Date(), new Date(Date.now() + 5_000));
    const run = await s.run(readFileTool, { path: "b.ts" });
    expect(run.llm).toContain("new");
    expect(s.prefetch.stats()).toMatchObject({ hits: 0 });
  });

  it("never loads through a link leading out of the workspace", async () => {
    const s = await project({ "a.ts": 'import { key } from "./secret";\n' });
    await writeFile(path.join(s.outside, "secret.ts"), "export const key = 'hunter2';\n");
    await symlink(path.join(s.outside, "secret.ts"), path.join(s.root, "secret.ts"));
    await s.run(readFileTool, { path: "a.ts" });
    await new Promise((r) => setTimeout(r, 200));
    expect(s.prefetch.stats().prefetched).toBe(0);
    const run = await s.run(readFileTool, { path: "secret.ts" });
    expect(run.error?.code).toBe("OUTSIDE_WORKSPACE");
  });
});
