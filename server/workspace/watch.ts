import path from "node:path";
import { watch, type FSWatcher } from "chokidar";
import type { FileChange } from "@/lib/fs-schemas";
import { isTempFileName } from "./atomic-write";
import { readRegular, realRoot } from "./beneath";
import { ChangeQueue } from "./change-queue";
import { toPosix } from "./paths";
import { READ_ONLY_BYTES, versionOf } from "./workspace";

export interface WatchOptions {
  /** Stops the iteration and releases the watcher. Without it the watcher lives until the next event after `return()`. */
  signal?: AbortSignal;
  /** Called once the initial scan is done and later changes will be reported (tests wait for it). */
  onReady?: () => void;
}

type ChangeType = FileChange["type"];
type Subscriber = (batch: readonly FileChange[]) => void;

interface Hub {
  watcher: FSWatcher;
  ready: Promise<void>;
  subscribers: Set<Subscriber>;
  pending: Map<string, ChangeType>;
  quietTimer?: NodeJS.Timeout;
  firstPendingAt: number;
  /** Batches are hashed asynchronously; chaining keeps them in the order they happened. */
  delivered: Promise<void>;
}

/** Quiet time that ends a burst, and the longest a burst may hold events back. */
const QUIET_MS = 50;
const MAX_HOLD_MS = 250;
const CHANGE_TYPES = new Set<string>(["add", "change", "unlink", "addDir", "unlinkDir"]);
// .tandem holds the server's own bookkeeping (transaction journals, checkpoints), not project files.
const UNWATCHED_FOLDERS = new Set([".git", "node_modules", ".tandem"]);

const hubs = new Map<string, Hub>();

function isUnwatched(root: string, absolute: string): boolean {
  const rel = path.relative(root, absolute);
  if (rel === "") return false;
  const segments = rel.split(path.sep);
  if (isTempFileName(segments[segments.length - 1])) return true;
  // The folder itself is reported; what is inside it is not.
  return segments.slice(0, -1).some((segment) => UNWATCHED_FOLDERS.has(segment));
}

/** Folds a burst into what a client needs: a temp file that came and went is no news at all. */
function coalesce(previous: ChangeType | undefined, next: ChangeType): ChangeType | null {
  if (previous === "add" && next === "change") return "add";
  if (previous === "add" && next === "unlink") return null;
  if (previous === "addDir" && next === "unlinkDir") return null;
  if (previous === "unlink" && (next === "add" || next === "change")) return "change";
  return next;
}

/**
 * The change with the new content's version, when it is a regular file an editor could open:
 * opened beneath the root (beneath.ts), so a FIFO, socket or device is never opened for reading
 * (one would hold a thread of libuv's pool) and a link leading out is never read.
 */
async function withVersion(root: string, change: FileChange): Promise<FileChange> {
  if (change.type !== "add" && change.type !== "change") return change;
  try {
    const { bytes } = await readRegular(root, change.path, `'${change.path}'`, READ_ONLY_BYTES);
    return bytes === null ? change : { ...change, version: versionOf(bytes) };
  } catch {
    return change; // gone again already (the unlink follows), not a regular file, or outside
  }
}

function flush(root: string, hub: Hub): void {
  clearTimeout(hub.quietTimer);
  hub.quietTimer = undefined;
  const changes = [...hub.pending].map(([changedPath, type]) => ({ type, path: changedPath }));
  hub.pending.clear();
  if (changes.length === 0) return;
  const versioned = Promise.all(changes.map((change) => withVersion(root, change)));
  hub.delivered = hub.delivered.then(async () => {
    const batch = await versioned;
    for (const subscriber of hub.subscribers) subscriber(batch);
  });
}

function record(root: string, hub: Hub, type: ChangeType, absolute: string): void {
  const changedPath = toPosix(path.relative(root, absolute));
  if (changedPath === "") return;
  const previous = hub.pending.get(changedPath);
  const next = coalesce(previous, type);
  hub.pending.delete(changedPath);
  if (next) hub.pending.set(changedPath, next);
  if (hub.quietTimer === undefined) hub.firstPendingAt = Date.now();
  clearTimeout(hub.quietTimer);
  const wait = Math.min(QUIET_MS, Math.max(0, hub.firstPendingAt + MAX_HOLD_MS - Date.now()));
  hub.quietTimer = setTimeout(() => flush(root, hub), wait);
}

function acquire(root: string, subscriber: Subscriber): Hub {
  let hub = hubs.get(root);
  if (!hub) {
    const watcher = watch(root, {
      ignoreInitial: true,
      followSymlinks: false,
      ignored: (absolute: string) => isUnwatched(root, absolute),
    });
    const created: Hub = {
      watcher,
      ready: new Promise((resolve) => watcher.once("ready", () => resolve())),
      subscribers: new Set(),
      pending: new Map(),
      firstPendingAt: 0,
      delivered: Promise.resolve(),
    };
    watcher.on("all", (event, absolute) => {
      if (CHANGE_TYPES.has(event)) record(root, created, event as ChangeType, absolute);
    });
    // A folder that vanishes under the watcher is reported through unlinkDir; nothing else to do.
    watcher.on("error", () => undefined);
    hubs.set(root, created);
    hub = created;
  }
  hub.subscribers.add(subscriber);
  return hub;
}

function release(root: string, hub: Hub, subscriber: Subscriber): void {
  hub.subscribers.delete(subscriber);
  if (hub.subscribers.size > 0) return;
  clearTimeout(hub.quietTimer);
  hubs.delete(root);
  void hub.watcher.close();
}

/**
 * Changes under a workspace root, as root-relative POSIX paths, until `signal` is aborted or the
 * consumer calls `return()`. All subscribers of one root share one watcher, closed when the last
 * one leaves. `.git`, `node_modules` and `.tandem` contents and the workspace's own temp files are left out.
 */
export function watchWorkspace(root: string, options: WatchOptions = {}): AsyncIterableIterator<FileChange> {
  const changes = new ChangeQueue(options.signal);
  changes.startWith(subscribe(root, changes, options));
  return changes;
}

async function subscribe(root: string, changes: ChangeQueue, options: WatchOptions): Promise<void> {
  const { real } = await realRoot(root);
  if (changes.closed) return;
  const subscriber: Subscriber = (batch) => changes.push(batch);
  const hub = acquire(real, subscriber);
  changes.onClose(() => release(real, hub, subscriber));
  await hub.ready;
  if (!changes.closed) options.onReady?.();
}
