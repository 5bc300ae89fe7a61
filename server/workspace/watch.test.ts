import { execFile } from "node:child_process";
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { mkdir, realpath, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import type { FileChange } from "@/lib/fs-schemas";
import { useTempDirs } from "@/server/test/temp-dirs";
import { watchWorkspace } from "./watch";
import { versionOf } from "./file-limits";
import { Workspace } from "./workspace";

const tempDir = useTempDirs();

/** Collects changes from one subscription until `stop()`. */
async function subscribe(root: string) {
  const controller = new AbortController();
  const seen: FileChange[] = [];
  let ready!: () => void;
  const isReady = new Promise<void>((resolve) => (ready = resolve));
  const done = (async () => {
    for await (const change of watchWorkspace(root, { signal: controller.signal, onReady: ready })) seen.push(change);
  })();
  await isReady;
  return {
    seen,
    async until(predicate: (changes: FileChange[]) => boolean, timeoutMs = 5000): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(seen)) {
        if (Date.now() > deadline) throw new Error(`timed out; saw ${JSON.stringify(seen)}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    async stop(): Promise<void> {
      controller.abort();
      await done;
    },
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 400));

describe("watchWorkspace", () => {
  it("reports an external change with the new version", async () => {
    const root = await realpath(await tempDir());
    await writeFile(path.join(root, "a.ts"), "one");
    const sub = await subscribe(root);
    await writeFile(path.join(root, "a.ts"), "two");
    await sub.until((seen) => seen.some((c) => c.path === "a.ts" && c.type === "change"));
    expect(sub.seen.find((c) => c.path === "a.ts")?.version).toBe(versionOf(Buffer.from("two")));
    await mkdir(path.join(root, "src"));
    await writeFile(path.join(root, "src", "b.ts"), "b");
    await sub.until((seen) => seen.some((c) => c.path === "src/b.ts" && c.type === "add"));
    expect(sub.seen.some((c) => c.path === "src" && c.type === "addDir")).toBe(true);
    await sub.stop();
  });

  it("does not report the workspace's own temp files, nor .git, node_modules and .tandem contents", async () => {
    const root = await realpath(await tempDir());
    await mkdir(path.join(root, ".git"));
    await mkdir(path.join(root, "node_modules"));
    await mkdir(path.join(root, ".tandem"));
    const ws = await Workspace.open(root);
    await ws.create("a.ts", "one");
    const sub = await subscribe(root);
    await ws.write("a.ts", "two");
    await ws.create("b.ts", "new");
    await writeFile(path.join(root, ".git", "index"), "x");
    await writeFile(path.join(root, "node_modules", "dep.js"), "x");
    await writeFile(path.join(root, ".tandem", "journal.json"), "x");
    await sub.until((seen) => seen.some((c) => c.path === "b.ts"));
    await settle();
    expect(sub.seen.map((c) => c.path).sort()).toEqual(["a.ts", "b.ts"]);
    // An atomic save renames a new file over the old one; a folder watcher that never scanned the
    // tree may call that an add. Either way clients read the file again (its version is attached).
    expect(["add", "change"]).toContain(sub.seen.find((c) => c.path === "a.ts")?.type);
    await sub.stop();
  });

  it("shares one watcher between subscribers and keeps serving the one that stays", async () => {
    const root = await realpath(await tempDir());
    const first = await subscribe(root);
    const second = await subscribe(root);
    await writeFile(path.join(root, "x.txt"), "x");
    await first.until((seen) => seen.some((c) => c.path === "x.txt"));
    await second.until((seen) => seen.some((c) => c.path === "x.txt"));
    await first.stop();
    await writeFile(path.join(root, "y.txt"), "y");
    await second.until((seen) => seen.some((c) => c.path === "y.txt"));
    await second.stop();
    const third = await subscribe(root);
    await writeFile(path.join(root, "z.txt"), "z");
    await third.until((seen) => seen.some((c) => c.path === "z.txt"));
    await third.stop();
  });

  it("reports deletions and ends when the signal is aborted", async () => {
    const root = await realpath(await tempDir());
    await writeFile(path.join(root, "gone.txt"), "x");
    const ws = await Workspace.open(root);
    const sub = await subscribe(root);
    await ws.delete("gone.txt");
    await sub.until((seen) => seen.some((c) => c.path === "gone.txt" && c.type === "unlink"));
    await sub.stop();
  });

  it("ends a pending next() and releases the watcher when the consumer returns early", async () => {
    const root = await realpath(await tempDir());
    let ready!: () => void;
    const isReady = new Promise<void>((resolve) => (ready = resolve));
    const changes = watchWorkspace(root, { onReady: ready });
    const pending = changes.next();
    await isReady;
    await changes.return?.();
    expect(await pending).toEqual({ value: undefined, done: true });
    expect(await changes.next()).toEqual({ value: undefined, done: true });
  });

  it("reports what a new folder brings with it, and a deleted folder as a folder", async () => {
    const root = await realpath(await tempDir());
    const sub = await subscribe(root);
    // All at once, before the watcher can watch the new folders: as mkdir -p, an unpacked archive or a checkout.
    mkdirSync(path.join(root, "deep", "x", "y"), { recursive: true });
    writeFileSync(path.join(root, "deep", "x", "y", "z.txt"), "new");
    await sub.until((seen) => seen.some((c) => c.path === "deep/x/y/z.txt"));
    expect(sub.seen).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: "addDir", path: "deep" }),
        expect.objectContaining({ type: "addDir", path: "deep/x" }),
        expect.objectContaining({ type: "addDir", path: "deep/x/y" }),
        expect.objectContaining({ type: "add", path: "deep/x/y/z.txt" }),
      ]),
    );
    await rm(path.join(root, "deep"), { recursive: true });
    await sub.until((seen) => seen.some((c) => c.path === "deep" && c.type === "unlinkDir"));
    await sub.stop();
  });

  it("never lists a folder outside the workspace that a new folder was swapped for", async () => {
    const base = await realpath(await tempDir());
    const root = path.join(base, "ws");
    const outside = path.join(base, "outside");
    mkdirSync(root);
    mkdirSync(outside);
    writeFileSync(path.join(outside, "secret-name.txt"), "x");
    const sub = await subscribe(root);
    // The attacker makes a folder, then swaps it for a link to a folder outside, over and over:
    // the watcher asks whether the new entry is a folder, then lists it.
    for (let i = 0; i < 50; i++) {
      const entry = path.join(root, `d${i}`);
      mkdirSync(entry);
      writeFileSync(path.join(entry, "inside.txt"), "x");
      rmSync(entry, { recursive: true });
      symlinkSync(outside, entry);
    }
    await settle();
    await settle();
    expect(sub.seen.filter((c) => c.path.includes("secret-name"))).toEqual([]);
    await sub.stop();
  });

  it("versions every file of a folder that arrives with thousands of files, within a low limit of open files", async () => {
    // Reading a whole checkout's files at once to version them ran the server out of file
    // descriptors (EMFILE), after which it could not even serve a page.
    const base = await realpath(await tempDir());
    const root = path.join(base, "root");
    const staged = path.join(base, "staged");
    const files = 1500;
    mkdirSync(root);
    for (let d = 0; d < 15; d++) {
      mkdirSync(path.join(staged, `pkg-${d}`), { recursive: true });
      for (let f = 0; f < files / 15; f++)
        writeFileSync(path.join(staged, `pkg-${d}`, `m${f}.ts`), `export const m = ${f};\n`);
    }
    const { stdout } = await promisify(execFile)(
      "bash",
      [
        "-c",
        'ulimit -n 256 && exec "$0" --import tsx server/test/watch-burst.ts "$@"',
        process.execPath,
        root,
        staged,
        String(files),
      ],
      { cwd: path.resolve(import.meta.dirname, "../..") },
    );
    expect(JSON.parse(stdout)).toEqual({ added: files, versioned: files });
  }, 60_000);
});
