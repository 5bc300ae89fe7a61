import { randomBytes } from "node:crypto";
import path from "node:path";
import watcher, { type AsyncSubscription, type Event } from "@parcel/watcher";
import { REREAD_ALL, type FileChange } from "@/lib/fs-schemas";
import { mapLimit } from "@/lib/map-limit";
import { isTempFileName } from "./atomic-write";
import { closeQuietly, lstatAtIfExists, openParent, readDirBeneath, realRoot } from "./beneath";
import { readRegular } from "./beneath-files";
import { ChangeQueue } from "./change-queue";
import { toPosix } from "./paths";
import { READ_ONLY_BYTES, versionOf } from "./file-limits";

export interface WatchOptions {
  /** Stops the iteration and releases the watcher. Without it the watcher lives until the next event after `return()`. */
  signal?: AbortSignal;
  /** Called once the initial scan is done and later changes will be reported (tests wait for it). */
  onReady?: () => void;
}

type ChangeType = FileChange["type"];
/** `seq`: the batch's number in its hub's stream (see `changeCursor`). */
type Subscriber = (batch: readonly FileChange[], seq: number) => void;

/** A change and the cursor of the stream once it has been read (tRPC's tracked event id). */
export interface TrackedChange {
  id: string;
  change: FileChange;
}

interface Hub {
  subscription: Promise<AsyncSubscription | null>;
  ready: Promise<void>;
  isReady: boolean;
  /** Names this watcher's stream: a cursor of an earlier watcher of the same root means nothing to it. */
  epoch: string;
  /** Batches delivered so far; the latest ones are kept in `log`, for clients that catch up from a cursor. */
  seq: number;
  log: { seq: number; batch: readonly FileChange[] }[];
  loggedChanges: number;
  /** Keeps the watcher (and its log) for a while after a listing or a subscription from a cursor. */
  lingering?: NodeJS.Timeout;
  subscribers: Set<Subscriber>;
  pending: Map<string, ChangeType>;
  quietTimer?: NodeJS.Timeout;
  firstPendingAt: number;
  /** Batches are hashed asynchronously; chaining keeps them in the order they happened. */
  delivered: Promise<void>;
  /** Folders reported as added, so that their deletion is reported as a folder's. */
  folders: Set<string>;
  /** Events are sorted (folder or file, what a new folder holds) in order, one burst after another. */
  sorted: Promise<void>;
}

/** Quiet time that ends a burst, and the longest a burst may hold events back. */
const QUIET_MS = 50;
const MAX_HOLD_MS = 250;
/**
 * How long a root stays watched after a listing or a reader from a cursor: the page that listed
 * subscribes a moment later, and a dropped socket reconnects, from the cursor, to the same stream.
 */
const LINGER_MS = 60_000;
/**
 * How long a listing waits for a watcher that is starting, so that its cursor can be replayed: a
 * few hundred folders take 20-40 ms on 2 busy cores; 27,000 files take 170 ms to seconds, more than
 * reading the open folders a second time costs.
 */
const READY_WAIT_MS = 60;
/** Changes kept for readers that catch up; a reader further behind reads everything again. */
const MAX_LOGGED = 10_000;
// .tandem holds the server's own bookkeeping (transaction journals, checkpoints), not project files.
const UNWATCHED_FOLDERS = new Set([".git", "node_modules", ".tandem"]);

const hubs = new Map<string, Hub>();
/**
 * Roots whose last watcher is still being closed. @parcel/watcher shares one native watcher per
 * folder, so a subscription made while the previous one unsubscribes would be torn down with it
 * (the last tab of a project closed and a new one opened at once): a new hub waits for that first.
 */
const closing = new Map<string, Promise<void>>();

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
  // A checkout or an unpacked archive arrives as thousands of files at once: reading them all at
  // once ran the server out of file descriptors (EMFILE), and then it could not serve a page.
  const versioned = mapLimit(changes, VERSION_READS_AT_ONCE, (change) => withVersion(root, change));
  hub.delivered = hub.delivered.then(async () => {
    const batch = await versioned;
    const seq = ++hub.seq;
    hub.log.push({ seq, batch });
    hub.loggedChanges += batch.length;
    while (hub.loggedChanges > MAX_LOGGED && hub.log.length > 1) hub.loggedChanges -= hub.log.shift()!.batch.length;
    for (const subscriber of hub.subscribers) subscriber(batch, seq);
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

// @parcel/watcher (what VS Code uses) watches folders, not files: inotify reports what changes in a
// watched folder, so a workspace costs one watch per folder and no scan of every file (chokidar
// watched each file and folder, and scanned them all first). It says only "created", "updated"
// or "deleted"; whether a created path is a folder is asked beneath the root, and a folder that
// arrives with content (mkdir -p, an unpacked archive, a checkout) is listed, since its content
// may be written before its own watch exists.
const IGNORED_GLOBS = [...UNWATCHED_FOLDERS].map((folder) => `**/${folder}/**`);
/** Files read at once to version a batch of changes. */
const VERSION_READS_AT_ONCE = 16;
/** The most entries one new folder's listing reports; the rest shows when someone opens its folders. */
const MAX_LISTED = 10_000;

function acquire(root: string, subscriber: Subscriber): Hub {
  let hub = hubs.get(root);
  if (!hub) {
    const created: Hub = {
      subscription: Promise.resolve(null),
      ready: Promise.resolve(),
      isReady: false,
      epoch: randomBytes(6).toString("hex"),
      seq: 0,
      log: [],
      loggedChanges: 0,
      subscribers: new Set(),
      pending: new Map(),
      firstPendingAt: 0,
      delivered: Promise.resolve(),
      folders: new Set(),
      sorted: Promise.resolve(),
    };
    created.subscription = (closing.get(root) ?? Promise.resolve())
      .then(() =>
        watcher.subscribe(
          root,
          (error, events) => {
            // A folder that vanishes under the watcher comes as its deletion; nothing else to do.
            if (error) return;
            created.sorted = created.sorted.then(() => sort(root, created, events));
          },
          { ignore: IGNORED_GLOBS },
        ),
      )
      .catch(() => null);
    created.ready = created.subscription.then(() => {
      created.isReady = true;
    });
    hubs.set(root, created);
    hub = created;
  }
  hub.subscribers.add(subscriber);
  return hub;
}

async function sort(root: string, hub: Hub, events: Event[]): Promise<void> {
  for (const event of events) {
    const rel = toPosix(path.relative(root, event.path));
    if (rel === "" || rel.startsWith("..") || isUnwatched(root, event.path)) continue;
    if (event.type === "update") record(root, hub, "change", event.path);
    else if (event.type === "delete") {
      let wasFolder = false;
      for (const folder of hub.folders) {
        if (folder !== rel && !folder.startsWith(`${rel}/`)) continue;
        wasFolder = true;
        hub.folders.delete(folder);
      }
      record(root, hub, wasFolder ? "unlinkDir" : "unlink", event.path);
    } else if ((await kindOf(root, rel)) === "folder") {
      hub.folders.add(rel);
      record(root, hub, "addDir", event.path);
      await listNew(root, hub, rel);
    } else record(root, hub, "add", event.path);
  }
}

/** What `rel` is, by lstat of its entry in its parent opened beneath the root (a link is a file here). */
async function kindOf(root: string, rel: string): Promise<"folder" | "file" | null> {
  let parent: ReturnType<typeof openParent>;
  try {
    parent = openParent(root, rel);
  } catch {
    return null; // gone already, or a parent swapped for a link leading out
  }
  try {
    const info = await lstatAtIfExists(parent.dirFd, parent.name);
    return info === null ? null : info.isDirectory() ? "folder" : "file";
  } catch {
    return null;
  } finally {
    closeQuietly(parent.dirFd);
  }
}

/** Reports what a new folder already holds, breadth first, beneath the root, up to MAX_LISTED entries. */
async function listNew(root: string, hub: Hub, rel: string): Promise<void> {
  const queue = [rel];
  let listed = 0;
  while (queue.length > 0 && listed < MAX_LISTED) {
    const folder = queue.shift()!;
    let opened: { dirFd: number; names: string[] };
    try {
      opened = await readDirBeneath(root, folder);
    } catch {
      continue; // gone again, or no longer a folder beneath the root
    }
    try {
      for (const name of opened.names) {
        if (++listed > MAX_LISTED) break;
        const child = `${folder}/${name}`;
        const absolute = path.join(root, child);
        if (isUnwatched(root, absolute)) continue;
        const info = await lstatAtIfExists(opened.dirFd, name).catch(() => null);
        if (!info) continue;
        if (info.isDirectory()) {
          hub.folders.add(child);
          record(root, hub, "addDir", absolute);
          if (!UNWATCHED_FOLDERS.has(name)) queue.push(child);
        } else record(root, hub, "add", absolute);
      }
    } finally {
      closeQuietly(opened.dirFd);
    }
  }
}

function release(root: string, hub: Hub, subscriber: Subscriber): void {
  hub.subscribers.delete(subscriber);
  if (hub.subscribers.size > 0) return;
  clearTimeout(hub.quietTimer);
  clearTimeout(hub.lingering);
  hubs.delete(root);
  // Folders deleted meanwhile make unsubscribing fail (EINVAL); the watcher is gone either way.
  const closed = hub.subscription
    .then((subscription) => subscription?.unsubscribe())
    .catch(() => undefined)
    .finally(() => {
      if (closing.get(root) === closed) closing.delete(root);
    });
  closing.set(root, closed);
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

/** Subscribed while a root lingers: nothing to do with the changes, only keeps the watcher. */
const lingerer: Subscriber = () => {};

function linger(root: string, hub: Hub): void {
  hub.subscribers.add(lingerer);
  clearTimeout(hub.lingering);
  hub.lingering = setTimeout(() => release(root, hub, lingerer), LINGER_MS);
  hub.lingering.unref();
}

/**
 * Where the root's change stream is now, for a listing to carry: a reader from this cursor
 * (`watchWorkspaceFrom`) gets every change made after it. Taken before the listing reads, so a
 * change between the two is reported again rather than lost. Starts watching the root if nobody
 * does, and keeps it watched a while. A watcher just started is waited for a little: a small
 * workspace's is ready in 20-40 ms, and its cold open's first listing then needs no second one. A
 * cursor taken before the watcher is ready (`epoch:`, a large workspace's first listing) makes its
 * reader read everything again once it is.
 */
export async function changeCursor(root: string): Promise<string> {
  const { real } = await realRoot(root);
  const hub = acquire(real, lingerer);
  linger(real, hub);
  if (!hub.isReady) {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([hub.ready, new Promise((resolve) => (timer = setTimeout(resolve, READY_WAIT_MS)))]);
    clearTimeout(timer);
  }
  return hub.isReady ? `${hub.epoch}:${hub.seq}` : `${hub.epoch}:`;
}

/** The batches after `cursor`, or null when this stream cannot tell (another watcher's, not yet ready, or too old). */
function replayAfter(hub: Hub, cursor: string | null | undefined): Hub["log"] | null {
  const match = /^([0-9a-f]{12}):(\d{1,15})$/.exec(cursor ?? "");
  if (!match || match[1] !== hub.epoch) return null;
  const after = Number(match[2]);
  if (after > hub.seq) return null;
  const oldest = hub.log[0]?.seq ?? hub.seq + 1;
  if (after + 1 < oldest) return null;
  return hub.log.filter((entry) => entry.seq > after);
}

/** Each change with the cursor after it: a batch's last change completes it, the others leave it to be read again. */
function trackBatch(epoch: string, batch: readonly FileChange[], seq: number): TrackedChange[] {
  return batch.map((change, i) => ({ id: `${epoch}:${i === batch.length - 1 ? seq : seq - 1}`, change }));
}

/**
 * Changes under a root after `cursor` (from `changeCursor`, or the id of the last change a reader
 * got before its connection dropped), then live: what happened in between is replayed from the
 * stream's log, or, when the cursor is unknown here, too old or missing, a first REREAD_ALL tells
 * the reader to read everything again. The watcher lingers after the reader leaves, so that it
 * can come back from its cursor.
 */
export function watchWorkspaceFrom(
  root: string,
  cursor: string | null | undefined,
  options: WatchOptions = {},
): AsyncIterableIterator<TrackedChange> {
  const changes = new ChangeQueue<TrackedChange>(options.signal);
  changes.startWith(subscribeFrom(root, cursor, changes, options));
  return changes;
}

async function subscribeFrom(
  root: string,
  cursor: string | null | undefined,
  changes: ChangeQueue<TrackedChange>,
  options: WatchOptions,
): Promise<void> {
  const { real } = await realRoot(root);
  if (changes.closed) return;
  const hub = acquire(real, lingerer);
  linger(real, hub);
  await hub.ready;
  if (changes.closed) return;
  // Replay and join in one step: a batch is logged and delivered at once, so none falls between.
  const replay = replayAfter(hub, cursor);
  if (replay === null) changes.push([{ id: `${hub.epoch}:${hub.seq}`, change: REREAD_ALL }]);
  else for (const { batch, seq } of replay) changes.push(trackBatch(hub.epoch, batch, seq));
  const subscriber: Subscriber = (batch, seq) => changes.push(trackBatch(hub.epoch, batch, seq));
  hub.subscribers.add(subscriber);
  changes.onClose(() => {
    hub.subscribers.delete(subscriber);
    if (hubs.get(real) === hub) linger(real, hub);
  });
  options.onReady?.();
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
