import { mkdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { useTempDirs } from "@/server/test/temp-dirs";
import { Workspace } from "./workspace";

const tempDir = useTempDirs();
let ws: Workspace;

async function files(tree: Record<string, string>): Promise<void> {
  for (const [rel, content] of Object.entries(tree)) {
    await mkdir(path.dirname(path.join(ws.root, rel)), { recursive: true });
    await writeFile(path.join(ws.root, rel), content);
  }
}

async function ignoredIn(dir: string): Promise<Record<string, boolean>> {
  return Object.fromEntries((await ws.list(dir)).map((entry) => [entry.name, entry.ignored]));
}

beforeEach(async () => {
  ws = await Workspace.open(await tempDir());
});

describe("list", () => {
  it("lists one folder: folders first, then by name, with root-relative POSIX paths", async () => {
    await files({ "b.ts": "bb", "a.ts": "a", "src/index.ts": "", "docs/readme.md": "" });
    await symlink("a.ts", path.join(ws.root, "link"));
    const entries = await ws.list("");
    expect(entries.map((e) => [e.name, e.type])).toEqual([
      ["docs", "directory"],
      ["src", "directory"],
      ["a.ts", "file"],
      ["b.ts", "file"],
      ["link", "symlink"],
    ]);
    expect(entries.find((e) => e.name === "b.ts")).toMatchObject({ path: "b.ts", size: 2, ignored: false });
    expect((await ws.list("src"))[0]).toMatchObject({ name: "index.ts", path: "src/index.ts" });
  });

  it("marks .git and entries matched by the root .gitignore", async () => {
    await files({
      ".gitignore": "dist/\n*.log\n!keep.log\n",
      ".git/HEAD": "",
      "dist/x.js": "",
      "a.log": "",
      "keep.log": "",
      "src/b.log": "",
      "src/c.ts": "",
    });
    expect(await ignoredIn("")).toEqual({
      ".git": true,
      dist: true,
      src: false,
      ".gitignore": false,
      "a.log": true,
      "keep.log": false,
    });
    expect(await ignoredIn("src")).toEqual({ "b.log": true, "c.ts": false });
    expect(await ignoredIn("dist")).toEqual({ "x.js": true });
  });

  it("applies nested .gitignore files below their folder, deeper rules winning", async () => {
    await files({
      ".gitignore": "*.gen.ts\n",
      "pkg/.gitignore": "out/\n!keep.gen.ts\n/local.txt\n",
      "pkg/out/a.js": "",
      "pkg/keep.gen.ts": "",
      "pkg/drop.gen.ts": "",
      "pkg/local.txt": "",
      "pkg/sub/local.txt": "",
      "other/out/a.js": "",
    });
    expect(await ignoredIn("pkg")).toEqual({
      ".gitignore": false,
      out: true,
      sub: false,
      "keep.gen.ts": false,
      "drop.gen.ts": true,
      "local.txt": true,
    });
    expect(await ignoredIn("pkg/sub")).toEqual({ "local.txt": false });
    expect(await ignoredIn("other")).toEqual({ out: false });
  });

  it("does not let a deeper rule re-include something inside an ignored folder", async () => {
    await files({ ".gitignore": "build/\n", "build/.gitignore": "!*\n", "build/x.js": "" });
    expect(await ignoredIn("build")).toEqual({ ".gitignore": true, "x.js": true });
  });

  it("picks up an edited .gitignore", async () => {
    await files({ ".gitignore": "a.txt\n", "a.txt": "", "b.txt": "" });
    expect(await ignoredIn("")).toMatchObject({ "a.txt": true, "b.txt": false });
    await writeFile(path.join(ws.root, ".gitignore"), "b.txt\n# longer now\n");
    expect(await ignoredIn("")).toMatchObject({ "a.txt": false, "b.txt": true });
  });
});
