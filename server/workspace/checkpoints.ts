import { mkdir, realpath } from "node:fs/promises";
import path from "node:path";
import { applyPlan } from "./checkpoint-apply";
import { captureWorkspace, treeRecorder, type Capture } from "./checkpoint-capture";
import { CheckpointError } from "./checkpoint-errors";
import { CheckpointGit, EMPTY_TREE, LATEST_REF, type CheckpointRunner } from "./checkpoint-git";
import { ChangeReview, type FileHunks, type HunkEdit, type HunkTarget } from "./checkpoint-review";
import { describeCommit, diffTreesWithStats, toFileChange, type FileChange, type StatChange } from "./checkpoint-tree";
import { isInside } from "./paths";
import { openWorkspace } from "./open-workspace";
import type { Workspace } from "./workspace";

export interface CheckpointStoreOptions {
  /** The project's folder. */
  workspaceRoot: string;
  /** Where snapshots are kept, e.g. `<dataDir>/checkpoints/<projectId>`; never inside the workspace. */
  storeDir: string;
  /** Where git runs (the project's sandbox and user); absent: as the server, on the host (tests of the store alone). */
  runner?: CheckpointRunner;
  /** How much of the store's files is read back into memory: one file at most, and a restore's batch. */
  limits?: { objectBytes?: number; restoreBatchBytes?: number };
}

export interface Checkpoint {
  /** The snapshot's commit id in the store. */
  id: string;
  label: string;
  /** Second precision (a git commit time). */
  createdAt: Date;
  parentId: string | null;
}

export interface Snapshot extends Checkpoint {
  /** Files that differ from the previous checkpoint (0: nothing changed; the tree is shared). */
  filesChanged: number;
}

export interface RestoreResult {
  /** A checkpoint of the workspace as it was just before the restore: `restore(undoId)` undoes it. */
  undoId: string;
  /** What the restore changed, as previewRestore listed it. */
  changed: FileChange[];
  /** Files that could not be put back (e.g. a folder with ignored files stands where a file was). */
  failed: { path: string; message: string }[];
}

const GC_EVERY = 25;

/**
 * Snapshots of one workspace in a git store of its own (GIT_DIR = storeDir, work tree = the
 * workspace, private index), so the project's .git is never read or written. Operations run one at
 * a time. See checkpoint-capture.ts for how a snapshot is taken.
 */
export class CheckpointStore {
  readonly workspaceRoot: string;
  readonly storeDir: string;
  private readonly runner: CheckpointRunner | undefined;
  private readonly limits: NonNullable<CheckpointStoreOptions["limits"]>;
  private git!: CheckpointGit;
  private workspace!: Workspace;
  private review!: ChangeReview;
  private ready: Promise<void> | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private latestId: string | null = null;
  /** The tree last written from the private index (captureWorkspace compares against it). */
  private indexTree = EMPTY_TREE;
  /** Commit id → tree id; both immutable, so this never goes stale. */
  private readonly trees = new Map<string, string>();
  private snapshotsSinceGc = 0;

  constructor(options: CheckpointStoreOptions) {
    if (!path.isAbsolute(options.workspaceRoot) || !path.isAbsolute(options.storeDir)) {
      throw new CheckpointError("INVALID_STORE", "workspaceRoot and storeDir must be absolute paths.");
    }
    this.workspaceRoot = path.resolve(options.workspaceRoot);
    this.storeDir = path.resolve(options.storeDir);
    this.runner = options.runner;
    this.limits = options.limits ?? {};
  }

  /** Checks git, creates the store on first use. Every operation waits for it; call it to fail early. */
  init(): Promise<void> {
    this.ready ??= this.open().catch((error: unknown) => {
      this.ready = undefined;
      throw error;
    });
    return this.ready;
  }

  /** Records the workspace as it is now (tracked and untracked files, minus ignored ones). */
  snapshot(options: { label: string }): Promise<Snapshot> {
    return this.serial(() => this.takeSnapshot(options.label));
  }

  /** Checkpoints, newest first. */
  list(): Promise<Checkpoint[]> {
    return this.serial(async () => {
      if (!this.latestId) return [];
      const text = await this.git.text(["log", "-z", "--format=%H%x1f%P%x1f%ct%x1f%s", this.latestId]);
      return text
        .split("\0")
        .filter(Boolean)
        .map((record) => {
          const [id, parents, time, label] = record.replace(/^\n/, "").split("\x1f") as [
            string,
            string,
            string,
            string,
          ];
          return { id, label, createdAt: new Date(Number(time) * 1000), parentId: parents.split(" ")[0] || null };
        });
    });
  }

  /** Files that differ between checkpoint `fromId` and checkpoint `to` or the workspace as it is now. */
  diff(fromId: string, to: string | "workspace"): Promise<FileChange[]> {
    return this.serial(async () => {
      const from = await this.treeOf(fromId);
      const target = to === "workspace" ? (await this.capture()).tree : await this.treeOf(to);
      return (await diffTreesWithStats(this.git, from, target, { renames: true })).map(toFileChange);
    });
  }

  /** The workspace as a tree, recorded without a checkpoint: what `changedSince` compares with later. */
  mark(): Promise<string> {
    return this.serial(async () => (await this.capture()).tree);
  }

  /** Files that differ between a tree `mark` returned and the workspace now (a rename: a deletion and an addition). */
  changedSince(mark: string): Promise<FileChange[]> {
    return this.serial(async () => {
      const now = (await this.capture()).tree;
      return (await diffTreesWithStats(this.git, mark, now, { renames: false })).map(toFileChange);
    });
  }

  /** A file's bytes in a checkpoint; null when it did not exist there. */
  fileAt(id: string, filePath: string): Promise<Buffer | null> {
    return this.serial(async () => {
      await this.treeOf(id);
      return this.review.fileAt(id, filePath);
    });
  }

  /** What restore(id) would change in the workspace: "added" files come back, "deleted" ones go. */
  previewRestore(id: string): Promise<FileChange[]> {
    return this.serial(async () => {
      const target = await this.treeOf(id);
      return (await this.restorePlan((await this.capture()).tree, target)).map(toFileChange);
    });
  }

  /**
   * Makes the workspace equal to checkpoint `id`: snapshots the current state first (the undo
   * point), writes changed files atomically, removes files the checkpoint did not have. Ignored
   * files and the project's .git are never touched.
   */
  restore(id: string): Promise<RestoreResult> {
    return this.serial(async () => {
      const target = await this.treeOf(id);
      return this.workspace.exclusive(async () => {
        const undo = await this.takeSnapshot(`Before restoring ${id.slice(0, 12)}`);
        const plan = await this.restorePlan(this.trees.get(undo.id)!, target);
        const failed = await applyPlan(this.git, this.workspace, plan, this.limits.restoreBatchBytes);
        return { undoId: undo.id, changed: plan.map(toFileChange), failed };
      });
    });
  }

  /** Puts one file back as it was in checkpoint `id` (deletes it if it did not exist then). */
  restoreFile(id: string, filePath: string): Promise<{ version: string | null }> {
    return this.serial(async () => {
      await this.treeOf(id);
      return this.workspace.exclusive(() => this.review.restoreFile(id, filePath));
    });
  }

  /** The changed regions of a text file between checkpoint `baseId` and the workspace. */
  hunks(baseId: string, filePath: string, options: { oldPath?: string } = {}): Promise<FileHunks> {
    return this.serial(async () => {
      await this.treeOf(baseId);
      return this.review.hunks({ baseId, path: filePath, ...options });
    });
  }

  /** Reverts one hunk in the workspace file, leaving the others as they are. */
  rejectHunk(target: HunkTarget): Promise<HunkEdit> {
    return this.serial(async () => {
      await this.treeOf(target.baseId);
      return this.workspace.exclusive(() => this.review.rejectHunk(target));
    });
  }

  /**
   * Accepts one hunk: returns a new review base (a commit off `baseId` whose file has that hunk
   * applied), so diffs against it no longer show the hunk. The workspace is not touched.
   */
  acceptHunk(target: HunkTarget): Promise<{ baseId: string }> {
    return this.serial(async () => {
      const tree = await this.treeOf(target.baseId);
      return this.remember(await this.review.acceptHunk(target, tree));
    });
  }

  /** Accepts a whole file as it is in the workspace: a new review base, as for acceptHunk. */
  acceptFile(target: { baseId: string; path: string; oldPath?: string }): Promise<{ baseId: string }> {
    return this.serial(async () => {
      const tree = await this.treeOf(target.baseId);
      return this.remember(await this.review.acceptFile(target, tree));
    });
  }

  private async open(): Promise<void> {
    const root = await realpath(this.workspaceRoot).catch(() => {
      throw new CheckpointError("INVALID_STORE", `The workspace folder '${this.workspaceRoot}' does not exist.`);
    });
    await mkdir(this.storeDir, { recursive: true });
    const store = await realpath(this.storeDir);
    if (isInside(root, store) || isInside(store, root)) {
      throw new CheckpointError(
        "INVALID_STORE",
        `The checkpoint store '${store}' must be outside the workspace '${root}' (put it under the data directory).`,
      );
    }
    this.git = new CheckpointGit(store, root, this.runner, this.limits.objectBytes);
    await this.git.init();
    this.workspace = await openWorkspace(root);
    this.review = new ChangeReview(this.git, this.workspace);
    const latest = await this.git.run(["rev-parse", "--verify", "-q", `${LATEST_REF}^{commit}`], { okCodes: [1] });
    if (latest.code === 0) {
      this.latestId = latest.stdout.toString("utf8").trim();
      this.indexTree = await this.git.text(["rev-parse", `${this.latestId}^{tree}`]);
      this.trees.set(this.latestId, this.indexTree);
    }
  }

  private serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(() => this.init()).then(task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async takeSnapshot(label: string): Promise<Snapshot> {
    const createdAt = new Date(Math.floor(Date.now() / 1000) * 1000);
    const date = `${createdAt.getTime() / 1000} +0000`;
    const message = `${label.split("\n")[0] || "Checkpoint"}\n`;
    // `git commit` on the store's HEAD (refs/tandem/latest): write-tree, commit and ref update in one call.
    const commit = await captureWorkspace(this.git, async (attempt) => {
      await this.git.run(
        [
          "commit",
          "--quiet",
          "--allow-empty",
          "--no-verify",
          "--cleanup=verbatim",
          "--file=-",
          ...(attempt > 0 ? ["--amend"] : []),
        ],
        {
          input: message,
          env: { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date },
          // It refreshes the index, reading files whose stat data cannot tell.
          readsWorkTree: true,
        },
      );
      return describeCommit(this.git, "HEAD");
    });
    this.indexTree = commit.tree;
    this.latestId = commit.id;
    this.trees.set(commit.id, commit.tree);
    if (++this.snapshotsSinceGc >= GC_EVERY) {
      this.snapshotsSinceGc = 0;
      // Queued behind this snapshot, so its caller does not wait; packs objects once there are many.
      void this.serial(() => this.git.run(["-c", "gc.auto=6700", "gc", "--auto", "--quiet"])).catch(() => undefined);
    }
    return { id: commit.id, label, createdAt, parentId: commit.parentId, filesChanged: commit.changes.length };
  }

  private async capture(): Promise<Capture> {
    const captured = await captureWorkspace(this.git, treeRecorder(this.git, this.indexTree));
    this.indexTree = captured.tree;
    return captured;
  }

  /** Changes from the workspace's tree to `target`'s, minus deletions of files the workspace now ignores. */
  private async restorePlan(current: string, target: string): Promise<StatChange[]> {
    const changes = await diffTreesWithStats(this.git, current, target, { renames: false });
    const deleted = changes.filter((change) => change.status === "deleted").map((change) => change.path);
    if (deleted.length === 0) return changes;
    const { stdout } = await this.git.run(["check-ignore", "--no-index", "-z", "--stdin"], {
      // check-ignore refuses literal pathspecs; "./" keeps a name starting with ':' from reading as magic.
      input: deleted.map((p) => `./${p}\0`).join(""),
      okCodes: [1],
      env: { GIT_LITERAL_PATHSPECS: "0" },
      readsWorkTree: true,
    });
    const ignored = new Set(
      stdout
        .toString("utf8")
        .split("\0")
        .filter(Boolean)
        .map((p) => p.slice(2)),
    );
    return changes.filter((change) => change.status !== "deleted" || !ignored.has(change.path));
  }

  private async treeOf(id: string): Promise<string> {
    const known = this.trees.get(id);
    if (known) return known;
    if (/^[0-9a-f]{40}$/.test(id)) {
      // A checkpoint is an ancestor of the newest one; a review base has a ref of its own.
      const reviewed = await this.git.run(["rev-parse", "--verify", "-q", `${ChangeReview.REFS}/${id}`], {
        okCodes: [1],
      });
      const checkpoint =
        reviewed.code === 0 ||
        (await this.git.run(["merge-base", "--is-ancestor", id, LATEST_REF], { okCodes: [1, 128] })).code === 0;
      if (checkpoint) {
        const tree = await this.git.text(["rev-parse", `${id}^{tree}`]);
        this.trees.set(id, tree);
        return tree;
      }
    }
    throw new CheckpointError(
      "UNKNOWN_CHECKPOINT",
      `There is no checkpoint '${id}' in this project. List the checkpoints to pick one.`,
    );
  }

  private remember(result: { baseId: string; tree: string }): { baseId: string } {
    this.trees.set(result.baseId, result.tree);
    return { baseId: result.baseId };
  }
}

const open = new Map<string, CheckpointStore>();

/** The store for a workspace, shared per store folder so that its operations stay serialized. */
export async function openCheckpointStore(options: CheckpointStoreOptions): Promise<CheckpointStore> {
  const key = path.resolve(options.storeDir);
  let store = open.get(key);
  if (store && store.workspaceRoot !== path.resolve(options.workspaceRoot)) {
    throw new CheckpointError(
      "INVALID_STORE",
      `The checkpoint store '${key}' belongs to the workspace '${store.workspaceRoot}'. Give each project its own store folder.`,
    );
  }
  if (!store) {
    store = new CheckpointStore(options);
    open.set(key, store);
  }
  await store.init().catch((error: unknown) => {
    open.delete(key);
    throw error;
  });
  return store;
}
