import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildScaffold } from "./scaffold";

// A task's generated repository is the same on every run and machine, the task's own files win
// over generated ones, and a TypeScript one carries the compiler (the sandbox cannot install it).

const dirs: string[] = [];
const temp = async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "tandem-scaffold-"));
  dirs.push(dir);
  return dir;
};
afterAll(() => Promise.all(dirs.map((d) => fs.rm(d, { recursive: true, force: true }))));

async function tree(root: string) {
  const entries = await fs.readdir(root, { recursive: true, withFileTypes: true });
  const files = entries.filter((e) => e.isFile() && !e.parentPath.includes("node_modules"));
  return Object.fromEntries(
    await Promise.all(
      files.map(async (e) => {
        const full = path.join(e.parentPath, e.name);
        return [path.relative(root, full), await fs.readFile(full, "utf8")] as const;
      }),
    ),
  );
}

describe("eval scaffold", () => {
  it("is deterministic, sized as asked, and keeps the task's own files", async () => {
    const repo = await temp();
    await fs.mkdir(path.join(repo, "src"), { recursive: true });
    await fs.writeFile(path.join(repo, "src", "own.ts"), "export const own = 1;\n");
    const [a, b] = [path.join(await temp(), "a"), path.join(await temp(), "b")];
    await buildScaffold({ kind: "typescript", files: 120, seed: "task-x", repoDir: repo }, a);
    await buildScaffold({ kind: "typescript", files: 120, seed: "task-x", repoDir: repo }, b);
    const [first, second] = [await tree(a), await tree(b)];
    expect(first).toEqual(second);
    expect(Object.keys(first).length).toBe(121);
    expect(first["src/own.ts"]).toBe("export const own = 1;\n");
    expect((await fs.stat(path.join(a, "node_modules", "typescript", "lib", "_tsc.js"))).isFile()).toBe(true);
    expect(await fs.readlink(path.join(a, "node_modules", ".bin", "tsc"))).toBe("../typescript/bin/tsc");
    const other = path.join(await temp(), "c");
    await buildScaffold({ kind: "python", files: 30, seed: "task-y", repoDir: repo }, other);
    expect(Object.keys(await tree(other)).some((f) => f.endsWith(".py"))).toBe(true);
  });
});
