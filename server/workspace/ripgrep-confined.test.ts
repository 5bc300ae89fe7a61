import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { bwrapAvailable, defaultBwrapPath } from "@/server/sandbox/launcher";
import { runRipgrep, useRipgrepConfinement, type RipgrepConfinement } from "./ripgrep";

// rg is confined to the tree it searches: by Landlock (native/rg-confined.c), or on a kernel
// without it in a bubblewrap sandbox that holds only the tree (ripgrep.ts). Whatever path it is
// led to, it reads nothing else, and when the confinement cannot be set up it runs nothing.

const made: string[] = [];
afterEach(async () => {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function tree() {
  const base = await mkdtemp(path.join(os.tmpdir(), "tandem-rg-confined-"));
  made.push(base);
  const root = path.join(base, "ws");
  await mkdir(path.join(root, "sub"), { recursive: true });
  await writeFile(path.join(root, "a.txt"), "needle inside\n");
  await writeFile(path.join(root, "sub", "b.txt"), "needle below\n");
  await writeFile(path.join(base, "outside.txt"), "needle outside\n");
  return { base, root };
}

const search = (args: string[], root: string, cwd?: string) =>
  runRipgrep(args, { root, cwd, signal: new AbortController().signal });

const bubblewrap = (await bwrapAvailable()) ? defaultBwrapPath() : null;
const confinements: [string, RipgrepConfinement | null][] = [
  ["Landlock", { kind: "landlock" }],
  ["bubblewrap", bubblewrap ? { kind: "bubblewrap", bwrap: bubblewrap } : null],
];

describe.each(confinements)("confined by %s", (_name, confinement) => {
  beforeAll(() => {
    if (confinement) useRipgrepConfinement(confinement);
  });
  afterAll(() => useRipgrepConfinement({ kind: "landlock" }));

  it.skipIf(!confinement)(
    "reads the tree and nothing outside it, even when named outright or through a link",
    async () => {
      const { base, root } = await tree();
      await symlink(path.join(base, "outside.txt"), path.join(root, "link.txt"));
      await symlink("/etc", path.join(root, "etc"));
      const inside = await search(["--follow", "--no-filename", "needle", "."], root);
      expect(inside.lines.sort()).toEqual(["needle below", "needle inside"]);
      const named = await search(["needle", path.join(base, "outside.txt"), "/etc/passwd", "etc/passwd"], root);
      expect(named.lines).toEqual([]);
      expect(named.exitCode).not.toBe(0);
    },
  );

  it.skipIf(!confinement)("searches from a folder of the tree, and not out of it through a link", async () => {
    const { base, root } = await tree();
    expect((await search(["--no-filename", "needle", "."], root, path.join(root, "sub"))).lines).toEqual([
      "needle below",
    ]);
    // A folder of the tree swapped for a link to the outside: searched from there, rg finds
    // nothing outside the tree (in bubblewrap's file system the link's target holds the tree only).
    await symlink(base, path.join(root, "away"));
    const away = await search(["--no-filename", "needle", "."], root, path.join(root, "away"));
    expect(away.lines.filter((line) => line !== "needle inside" && line !== "needle below")).toEqual([]);
  });

  it.skipIf(!confinement)("runs nothing when it cannot be confined to the root", async () => {
    const { base, root } = await tree();
    // The root is opened without following a link: a root that is one cannot be confined.
    await symlink(root, path.join(base, "root-link"));
    const run = await search(["needle", "."], path.join(base, "root-link"));
    expect(run.lines).toEqual([]);
    expect(run.exitCode).toBe(125);
  });
});
