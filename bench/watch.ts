// The workspace watcher (server/workspace/watch.ts) on a large tree: a hard-linked copy of the
// project's own node_modules (~80,000 files, ~9,000 folders, code nobody here wrote), as a folder of
// a workspace. Against a reference measured in the same run, a plain recursive listing of the same
// tree (what it costs just to know every folder), it prints the time until the watcher is ready,
// the inotify watches it holds (one per folder is the floor), the memory it adds and how long a
// change deep in the tree takes to be reported. Run with `npm run bench:watch`; exits non-zero when
// a target is missed. Figures only: the machine and its load move them; read the ratios.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { watchWorkspace } from "@/server/workspace/watch";

const SOURCE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "node_modules");
// Ready: the watcher lists the tree once itself; no file is read or watched one by one.
const TARGETS = { readyOverListing: 12, watchesOverFolders: 1.05, addedMiB: 64 };

function inotifyWatches(): number {
  let count = 0;
  for (const fd of readdirSync("/proc/self/fd")) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`) !== "anon_inode:inotify") continue;
      count += readFileSync(`/proc/self/fdinfo/${fd}`, "utf8")
        .split("\n")
        .filter((line) => line.startsWith("inotify")).length;
    } catch {
      // closed while we looked
    }
  }
  return count;
}

async function listAll(root: string): Promise<{ folders: number; files: number }> {
  let folders = 0;
  let files = 0;
  const queue = [root];
  while (queue.length > 0) {
    const folder = queue.pop()!;
    folders++;
    for (const entry of await readdir(folder, { withFileTypes: true })) {
      if (entry.isDirectory()) queue.push(path.join(folder, entry.name));
      else files++;
    }
  }
  return { folders, files };
}

const rssMiB = () => {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().rss / 2 ** 20;
};

const base = mkdtempSync(path.join(tmpdir(), "tandem-bench-watch-"));
try {
  const root = path.join(base, "workspace");
  execFileSync("mkdir", ["-p", root]);
  // Named vendor: the watcher leaves node_modules' contents out, and this is about a big tree.
  execFileSync("cp", ["-al", SOURCE, path.join(root, "vendor")]);

  const listingStart = performance.now();
  const tree = await listAll(root);
  const listingMs = performance.now() - listingStart;

  const before = rssMiB();
  const controller = new AbortController();
  const seen: string[] = [];
  const readyStart = performance.now();
  let ready!: () => void;
  const isReady = new Promise<void>((resolve) => (ready = resolve));
  const consumed = (async () => {
    for await (const change of watchWorkspace(root, { signal: controller.signal, onReady: ready }))
      seen.push(change.path);
  })();
  await isReady;
  const readyMs = performance.now() - readyStart;
  const watches = inotifyWatches();
  const addedMiB = rssMiB() - before;

  const deep = path.join("vendor", "typescript", "lib", "bench-watch-probe.txt");
  const changeStart = performance.now();
  writeFileSync(path.join(root, deep), "probe");
  while (!seen.includes(deep)) await new Promise((resolve) => setTimeout(resolve, 2));
  const changeMs = performance.now() - changeStart;
  controller.abort();
  await consumed;

  const readyRatio = readyMs / listingMs;
  const watchRatio = watches / tree.folders;
  console.log(`tree: ${tree.files} files in ${tree.folders} folders`);
  console.log(`listing every folder (reference): ${listingMs.toFixed(0)} ms`);
  console.log(
    `watcher ready: ${readyMs.toFixed(0)} ms, ${readyRatio.toFixed(2)}x the listing (target at most ${TARGETS.readyOverListing}x)`,
  );
  console.log(
    `inotify watches: ${watches}, ${watchRatio.toFixed(2)} per folder (target at most ${TARGETS.watchesOverFolders})`,
  );
  console.log(`memory added: ${addedMiB.toFixed(1)} MiB (target at most ${TARGETS.addedMiB})`);
  console.log(`a change deep in the tree reported after ${changeMs.toFixed(0)} ms (the watcher batches for 50 ms)`);
  const missed = [
    readyRatio > TARGETS.readyOverListing && "ready time",
    watchRatio > TARGETS.watchesOverFolders && "watches",
    addedMiB > TARGETS.addedMiB && "memory",
  ].filter(Boolean);
  if (missed.length > 0) {
    console.log(`missed: ${missed.join(", ")}`);
    process.exitCode = 1;
  }
} finally {
  rmSync(base, { recursive: true, force: true });
}
