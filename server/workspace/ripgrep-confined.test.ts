import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, expect, it } from "vitest";
import { runRipgrep } from "./ripgrep";

// rg is confined by Landlock to the tree it searches (native/rg-confined.c): whatever path it is
// led to, it reads nothing else, and when the confinement cannot be set up it runs nothing.

const made: string[] = [];
afterEach(async () => {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function tree() {
  const base = await mkdtemp(path.join(os.tmpdir(), "tandem-rg-confined-"));
  made.push(base);
  const root = path.join(base, "ws");
  await mkdir(root);
  await writeFile(path.join(root, "a.txt"), "needle inside\n");
  await writeFile(path.join(base, "outside.txt"), "needle outside\n");
  return { base, root };
}

const search = (args: string[], root: string) => runRipgrep(args, { root, signal: new AbortController().signal });

it("reads the tree and nothing outside it, even when named outright or through a link", async () => {
  const { base, root } = await tree();
  await symlink(path.join(base, "outside.txt"), path.join(root, "link.txt"));
  const inside = await search(["--follow", "--no-filename", "needle", "."], root);
  expect(inside.lines).toEqual(["needle inside"]);
  const named = await search(["needle", path.join(base, "outside.txt"), "/etc/passwd"], root);
  expect(named.lines).toEqual([]);
  expect(named.stderr).toMatch(/Permission denied/);
});

it("runs nothing when it cannot be confined to the root", async () => {
  const { base, root } = await tree();
  // The launcher opens the root without following a link: a root that is one cannot be confined.
  await symlink(root, path.join(base, "root-link"));
  const run = await search(["needle", "."], path.join(base, "root-link"));
  expect(run.lines).toEqual([]);
  expect(run.exitCode).toBe(125);
});
