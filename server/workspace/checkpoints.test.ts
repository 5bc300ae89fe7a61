import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmod, mkdir, readFile, readdir, readlink, rm, stat, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CheckpointError } from "./checkpoint-errors";
import { CheckpointStore } from "./checkpoints";
import { useTempDirs } from "@/server/test/temp-dirs";

const tempDir = useTempDirs();

async function setup(files: Record<string, string | Buffer> = {}) {
  const root = await tempDir();
  const storeDir = path.join(await tempDir(), "checkpoints", "project-1");
  await put(root, files);
  return { root, store: new CheckpointStore({ workspaceRoot: root, storeDir }), storeDir };
}

async function put(root: string, files: Record<string, string | Buffer>) {
  for (const [name, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, name)), { recursive: true });
    await writeFile(path.join(root, name), content);
  }
}

const read = (root: string, name: string) => readFile(path.join(root, name));
const exists = (root: string, name: string) =>
  stat(path.join(root, name)).then(
    () => true,
    () => false,
  );

/** Every file under `dir` with a hash of its bytes and its mode. */
async function fingerprint(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = path.join(entry.parentPath, entry.name);
    const info = await stat(full);
    out[path.relative(dir, full)] = `${createHash("sha1")
      .update(await readFile(full))
      .digest("hex")} ${info.mode.toString(8)}`;
  }
  return out;
}

async function dirBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) total += (await stat(path.join(entry.parentPath, entry.name))).size;
  }
  return total;
}

function plainGit(cwd: string, ...args: string[]) {
  return execFileSync("git", ["-c", "user.name=Dev", "-c", "user.email=dev@example.com", ...args], {
    cwd,
    env: {
      ...process.env,
      GIT_DIR: undefined,
      GIT_WORK_TREE: undefined,
      GIT_INDEX_FILE: undefined,
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
    },
  }).toString();
}

const allBytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
const numbered = (count: number, edit: Record<number, string> = {}) =>
  `${Array.from({ length: count }, (_, i) => edit[i + 1] ?? `line ${i + 1}`).join("\n")}\n`;

describe("CheckpointStore", () => {
  it("gives the original bytes and modes back after changes", async () => {
    const original = {
      "src/app.ts": "export const a = 1;\n",
      "assets/all-bytes.bin": allBytes,
      "empty.txt": "",
      "windows.txt": "one\r\ntwo\r\n",
      "a/b/c/d/e/deep.txt": "deep\n",
      // Would normalise line endings if the workspace's attributes applied to the store.
      ".gitattributes": "* text=auto eol=lf\n",
      "run.sh": "#!/bin/sh\necho hi\n",
    };
    const { root, store } = await setup(original);
    await chmod(path.join(root, "run.sh"), 0o755);
    await symlink("src/app.ts", path.join(root, "link-to-app"));
    const before = await fingerprint(root);
    const { id } = await store.snapshot({ label: "turn 1" });

    await put(root, {
      "src/app.ts": "export const a = 2;\n",
      "assets/all-bytes.bin": Buffer.from([0, 1]),
      "empty.txt": "now full",
      "windows.txt": "one\ntwo\n",
    });
    await rm(path.join(root, "a"), { recursive: true });
    await chmod(path.join(root, "run.sh"), 0o644);
    await rm(path.join(root, "link-to-app"));
    await mkdir(path.join(root, "link-to-app"));
    await put(root, { "link-to-app/inside.txt": "a folder now stands where the link was\n" });

    const result = await store.restore(id);
    expect(result.failed).toEqual([]);
    expect(await readlink(path.join(root, "link-to-app"))).toBe("src/app.ts");
    expect(await fingerprint(root)).toEqual(before);
    expect((await read(root, "assets/all-bytes.bin")).equals(allBytes)).toBe(true);
    expect((await read(root, "windows.txt")).toString()).toBe("one\r\ntwo\r\n");
    expect((await read(root, "empty.txt")).length).toBe(0);
    expect((await store.fileAt(id, "assets/all-bytes.bin"))!.equals(allBytes)).toBe(true);
  });

  it("removes files a shell command created after the checkpoint, and the folders they left empty", async () => {
    const { root, store } = await setup({ "keep.txt": "keep\n" });
    const { id } = await store.snapshot({ label: "before" });
    await put(root, { "generated/by/shell.txt": "made by a command\n", "top.txt": "also\n" });

    await store.restore(id);
    expect(await exists(root, "generated")).toBe(false);
    expect(await exists(root, "top.txt")).toBe(false);
    expect((await read(root, "keep.txt")).toString()).toBe("keep\n");
  });

  it("neither stores nor deletes ignored files", async () => {
    const { root, store } = await setup({
      ".gitignore": "node_modules/\ndist/\n",
      "node_modules/lib/index.js": "module.exports = 1;\n",
      "dist/out.js": "built\n",
      "src/main.ts": "main\n",
    });
    const { id } = await store.snapshot({ label: "before" });
    expect(await store.fileAt(id, "node_modules/lib/index.js")).toBeNull();
    expect(await store.fileAt(id, "dist/out.js")).toBeNull();
    expect((await store.fileAt(id, "src/main.ts"))!.toString()).toBe("main\n");

    await put(root, {
      "node_modules/new/index.js": "new dep\n",
      "dist/out.js": "rebuilt\n",
      "src/main.ts": "changed\n",
    });
    expect((await store.diff(id, "workspace")).map((c) => c.path)).toEqual(["src/main.ts"]);
    await store.restore(id);
    expect((await read(root, "node_modules/new/index.js")).toString()).toBe("new dep\n");
    expect((await read(root, "dist/out.js")).toString()).toBe("rebuilt\n");
    expect((await read(root, "node_modules/lib/index.js")).toString()).toBe("module.exports = 1;\n");
    expect((await read(root, "src/main.ts")).toString()).toBe("main\n");
  });

  it("stops storing a file once a .gitignore ignores it, and does not delete it on restore", async () => {
    const { root, store } = await setup({ "out/report.txt": "v1\n", "a.txt": "a\n" });
    const first = await store.snapshot({ label: "1" });
    await put(root, { ".gitignore": "out/\n" });
    const second = await store.snapshot({ label: "2" });
    expect(await store.fileAt(second.id, "out/report.txt")).toBeNull();
    await rm(path.join(root, ".gitignore"));
    await store.restore(first.id);
    expect((await read(root, "out/report.txt")).toString()).toBe("v1\n");
  });

  it("snapshots a project with its own git repository as plain files and never touches its .git", async () => {
    const { root, store, storeDir } = await setup({
      "README.md": "# project\n",
      "vendor/lib/lib.js": "lib v1\n",
      "fresh/new.txt": "unborn\n",
    });
    plainGit(root, "init", "-q");
    plainGit(root, "add", "README.md");
    plainGit(root, "commit", "-qm", "first");
    plainGit(path.join(root, "vendor/lib"), "init", "-q");
    plainGit(path.join(root, "vendor/lib"), "add", "-A");
    plainGit(path.join(root, "vendor/lib"), "commit", "-qm", "vendored");
    plainGit(path.join(root, "fresh"), "init", "-q"); // a repository without any commit
    const dotGit = await fingerprint(path.join(root, ".git"));
    const nestedGit = await fingerprint(path.join(root, "vendor/lib/.git"));

    const { id } = await store.snapshot({ label: "turn" });
    const tree = execFileSync("git", ["--git-dir", storeDir, "ls-tree", "-r", id], {
      env: { ...process.env, GIT_INDEX_FILE: undefined },
    }).toString();
    expect(tree).not.toContain("160000");
    expect(tree).not.toMatch(/(^|\/)\.git\//m);
    expect((await store.fileAt(id, "vendor/lib/lib.js"))!.toString()).toBe("lib v1\n");
    expect((await store.fileAt(id, "fresh/new.txt"))!.toString()).toBe("unborn\n");

    await put(root, { "README.md": "# changed\n", "vendor/lib/lib.js": "lib v2\n" });
    await store.snapshot({ label: "after" });
    await store.restore(id);
    expect((await read(root, "vendor/lib/lib.js")).toString()).toBe("lib v1\n");
    expect(await fingerprint(path.join(root, ".git"))).toEqual(dotGit);
    expect(await fingerprint(path.join(root, "vendor/lib/.git"))).toEqual(nestedGit);
    expect(plainGit(root, "status", "--porcelain")).toBe("?? fresh/\n?? vendor/\n");
    expect(plainGit(root, "log", "--format=%s")).toBe("first\n");
  });

  it("can undo a restore", async () => {
    const { root, store } = await setup({ "a.txt": "original\n" });
    const { id } = await store.snapshot({ label: "before" });
    await put(root, { "a.txt": "agent's version\n", "new.txt": "agent made this\n" });

    const { undoId } = await store.restore(id);
    expect((await read(root, "a.txt")).toString()).toBe("original\n");
    expect(await exists(root, "new.txt")).toBe(false);

    await store.restore(undoId);
    expect((await read(root, "a.txt")).toString()).toBe("agent's version\n");
    expect((await read(root, "new.txt")).toString()).toBe("agent made this\n");
  });

  it("previews exactly the files a restore would change", async () => {
    const { root, store } = await setup({
      ".gitignore": "*.log\n",
      "modified.txt": "1\n",
      "deleted.txt": "2\n",
      "same.txt": "3\n",
    });
    const { id } = await store.snapshot({ label: "before" });
    await put(root, { "modified.txt": "changed\n", "created.txt": "new\n", "debug.log": "ignored\n" });
    await rm(path.join(root, "deleted.txt"));

    const preview = await store.previewRestore(id);
    expect(preview.map(({ path: p, status }) => [p, status])).toEqual([
      ["created.txt", "deleted"],
      ["deleted.txt", "added"],
      ["modified.txt", "modified"],
    ]);
    const { changed } = await store.restore(id);
    expect(changed).toEqual(preview);
    expect(await store.previewRestore(id)).toEqual([]);
    expect(await exists(root, "debug.log")).toBe(true);
  });

  it("rejects one hunk of three and keeps the others", async () => {
    const { root, store } = await setup({ "notes.txt": numbered(40) });
    const { id } = await store.snapshot({ label: "before" });
    await put(root, { "notes.txt": numbered(40, { 5: "five!", 20: "twenty!", 35: "thirty-five!" }) });

    const listed = await store.hunks(id, "notes.txt");
    expect(listed.hunks).toHaveLength(3);
    const edit = await store.rejectHunk({
      baseId: id,
      path: "notes.txt",
      hunkIndex: 1,
      expectedVersion: listed.version,
    });
    const expected = numbered(40, { 5: "five!", 35: "thirty-five!" });
    expect((await read(root, "notes.txt")).toString()).toBe(expected);
    expect(edit.content).toBe(expected);
    expect(edit.hunks).toHaveLength(2);

    await expect(
      store.rejectHunk({ baseId: id, path: "notes.txt", hunkIndex: 0, expectedVersion: listed.version }),
    ).rejects.toMatchObject({ code: "STALE" });
    await expect(store.rejectHunk({ baseId: id, path: "notes.txt", hunkIndex: 7 })).rejects.toMatchObject({
      code: "UNKNOWN_HUNK",
    });
  });

  it("accepting a hunk moves the review base without touching the workspace", async () => {
    const { root, store } = await setup({ "notes.txt": numbered(40) });
    const { id } = await store.snapshot({ label: "before" });
    const changed = numbered(40, { 5: "five!", 35: "thirty-five!" });
    await put(root, { "notes.txt": changed, "extra.txt": "x\n" });

    const { baseId } = await store.acceptHunk({ baseId: id, path: "notes.txt", hunkIndex: 0 });
    expect((await store.hunks(baseId, "notes.txt")).hunks.map((h) => h.lines.filter((l) => l.startsWith("+")))).toEqual(
      [["+thirty-five!"]],
    );
    const accepted = await store.acceptFile({ baseId, path: "extra.txt" });
    expect((await store.diff(accepted.baseId, "workspace")).map((c) => c.path)).toEqual(["notes.txt"]);
    expect((await read(root, "notes.txt")).toString()).toBe(changed);
  });

  it("restores a single file, deleting it when the checkpoint did not have it", async () => {
    const { root, store } = await setup({ "a.txt": "a\n" });
    const { id } = await store.snapshot({ label: "before" });
    await put(root, { "a.txt": "changed\n", "b.txt": "new\n" });
    expect(await store.restoreFile(id, "a.txt")).toEqual({ version: expect.any(String) });
    expect(await store.restoreFile(id, "b.txt")).toEqual({ version: null });
    expect((await read(root, "a.txt")).toString()).toBe("a\n");
    expect(await exists(root, "b.txt")).toBe(false);
  });

  it("reads back no file larger than it may hold in memory, and restores the others a batch at a time", async () => {
    // What is in a workspace is hostile: a file planted larger than the server reads back whole.
    const small = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`f${i}.txt`, `${i}\n`.repeat(5_000)]));
    const { root, storeDir } = await setup({ "huge.bin": Buffer.alloc(300_000, 7), ...small });
    const store = new CheckpointStore({
      workspaceRoot: root,
      storeDir,
      limits: { objectBytes: 200_000, restoreBatchBytes: 50_000 },
    });
    const { id } = await store.snapshot({ label: "before" });
    await put(root, {
      "huge.bin": "replaced\n",
      ...Object.fromEntries(Object.keys(small).map((name) => [name, "changed\n"])),
    });

    const { failed } = await store.restore(id);
    expect(failed).toEqual([
      { path: "huge.bin", message: expect.stringContaining("'huge.bin' is 293 KB in this checkpoint") },
    ]);
    expect((await read(root, "huge.bin")).toString()).toBe("replaced\n");
    for (const [name, text] of Object.entries(small)) expect((await read(root, name)).toString()).toBe(text);
    await expect(store.fileAt(id, "huge.bin")).rejects.toMatchObject({ code: "TOO_LARGE" });
    expect((await store.fileAt(id, "f3.txt"))?.toString()).toBe(small["f3.txt"]);
  });

  it("diffs checkpoints with renames and binary files", async () => {
    const { root, store } = await setup({ "old-name.txt": numbered(30), "pic.bin": allBytes, "gone.txt": "bye\n" });
    const first = await store.snapshot({ label: "1" });
    await rm(path.join(root, "old-name.txt"));
    await rm(path.join(root, "gone.txt"));
    await put(root, { "new-name.txt": numbered(30, { 3: "three" }), "pic.bin": Buffer.concat([allBytes, allBytes]) });
    const second = await store.snapshot({ label: "2" });
    expect(second.filesChanged).toBe(4);
    expect(await store.diff(first.id, second.id)).toEqual([
      { path: "gone.txt", status: "deleted", binary: false },
      { path: "new-name.txt", status: "renamed", binary: false, oldPath: "old-name.txt" },
      { path: "pic.bin", status: "modified", binary: true },
    ]);
  });

  it("serializes concurrent snapshots into one chain and shares the tree when nothing changed", async () => {
    const { store } = await setup({ "a.txt": "a\n" });
    const snaps = await Promise.all(Array.from({ length: 5 }, (_, i) => store.snapshot({ label: `turn ${i}` })));
    expect(new Set(snaps.map((s) => s.id)).size).toBe(5);
    snaps.slice(1).forEach((snap, i) => expect(snap.parentId).toBe(snaps[i]!.id));
    expect(snaps.slice(1).every((snap) => snap.filesChanged === 0)).toBe(true);
    expect((await store.list()).map((c) => c.label)).toEqual(["turn 4", "turn 3", "turn 2", "turn 1", "turn 0"]);
  });

  it("grows the store with what changed, not with the size of the workspace", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 2000; i++)
      files[`src/m${i % 40}/file${i}.ts`] = `export const value${i} = "${"x".repeat(2000)}${i}";\n`;
    const { root, store, storeDir } = await setup(files);
    const workspaceBytes = await dirBytes(root);
    await store.snapshot({ label: "1" });
    const before = await dirBytes(storeDir);
    await put(root, { "src/m0/file0.ts": "export const value0 = 'changed';\n" });
    await store.snapshot({ label: "2" });
    const growth = (await dirBytes(storeDir)) - before;
    expect(growth).toBeLessThan(workspaceBytes / 100);
  });

  it("refuses a store inside the workspace and unknown checkpoint ids", async () => {
    const root = await tempDir();
    const inside = new CheckpointStore({ workspaceRoot: root, storeDir: path.join(root, ".tandem", "checkpoints") });
    await expect(inside.init()).rejects.toMatchObject({ code: "INVALID_STORE" });
    const { store } = await setup({ "a.txt": "a\n" });
    const error = await store.restore("0".repeat(40)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CheckpointError);
    expect(error).toMatchObject({ code: "UNKNOWN_CHECKPOINT" });
  });

  it("reopens an existing store and continues its chain", async () => {
    const { root, store, storeDir } = await setup({ "a.txt": "a\n" });
    const first = await store.snapshot({ label: "1" });
    const reopened = new CheckpointStore({ workspaceRoot: root, storeDir });
    await put(root, { "a.txt": "b\n" });
    const second = await reopened.snapshot({ label: "2" });
    expect(second.parentId).toBe(first.id);
    expect(second.filesChanged).toBe(1);
  });
});
