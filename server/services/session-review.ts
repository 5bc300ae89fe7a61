import { treeKey } from "@/lib/trees";
import path from "node:path";
import type { Db } from "@/server/db/client";
import { findSession } from "@/server/db/repositories/sessions";
import { listEventsOfTypes } from "@/server/db/repositories/session-events";
import type { AgentRuntime } from "@/server/agent/runtime";
import type { CheckpointStores } from "@/server/agent/turn-checkpoint";
import type { ProjectFiles } from "@/server/services/project-files";
import { isWorkspaceError, versionOf, type CheckpointStore } from "@/server/workspace";
import type { FileChange } from "@/server/workspace/checkpoint-tree";
import type { Hunk } from "@/server/workspace/checkpoint-hunks";
import { decode } from "@/server/workspace/text-codec";
import { foldReviewLog, REVIEW_EVENT_TYPES, type ReviewLog } from "@/lib/review-log";

// Reviewing an agent session's changes and rolling them back, on top of the project's checkpoint
// store: which base to diff against comes from the session's log (lib/review-log.ts), and every
// decision that changes that base, or the files wholesale, is recorded there as an event.

export type ReviewDeps = { db: Db; agent: AgentRuntime; checkpoints: CheckpointStores; files: ProjectFiles };
/** `treeId`: the tree the session works in (lib/trees.ts); its checkpoints and files are that tree's. */
export type ReviewSession = { id: string; projectId: string; treeId: string | null };
type Person = { id: string; name: string };

export class ReviewError extends Error {
  constructor(
    readonly code: "NOT_FOUND" | "CONFLICT" | "BAD_REQUEST",
    message: string,
  ) {
    super(message);
  }
}

/** Files past this many get no hunk counts in the list (each count reads the file). */
const MAX_COUNTED_FILES = 300;

export type ChangedFile = FileChange & { hunks: number | null; added: number | null; removed: number | null };

// Accepting moves the base; two accepts at once must not both start from the same base.
const queues = new Map<string, Promise<unknown>>();
function serial<T>(sessionId: string, task: () => Promise<T>): Promise<T> {
  const run = (queues.get(sessionId) ?? Promise.resolve()).then(task);
  const tail = run.catch(() => undefined);
  queues.set(sessionId, tail);
  void tail.then(() => queues.get(sessionId) === tail && queues.delete(sessionId));
  return run;
}

// What one finished turn changed never changes again: kept per (tree, checkpoint, end).
const treeCacheKey = (session: ReviewSession) => treeKey(session);
const turnPathsCache = new Map<string, string[]>();
const TURN_PATHS_CACHED = 5_000;

/**
 * The paths the agent's turns changed: each turn's checkpoint against the snapshot taken when it
 * ended (a turn cut off by a restart runs to the next turn's checkpoint, or to now). Files only
 * people changed between turns are not the agent's and stay out of its review.
 */
async function agentPaths(s: CheckpointStore, treeKey: string, log: ReviewLog): Promise<Set<string>> {
  const paths = new Set<string>();
  for (const [i, turn] of log.checkpoints.entries()) {
    const until = turn.endId ?? log.checkpoints[i + 1]?.checkpointId ?? "workspace";
    const key = `${treeKey}:${turn.checkpointId}:${until}`;
    let changed = until === "workspace" ? undefined : turnPathsCache.get(key);
    if (!changed) {
      changed = (await s.diff(turn.checkpointId, until)).flatMap((c) => (c.oldPath ? [c.path, c.oldPath] : [c.path]));
      if (until !== "workspace") {
        if (turnPathsCache.size >= TURN_PATHS_CACHED) turnPathsCache.delete(turnPathsCache.keys().next().value!);
        turnPathsCache.set(key, changed);
      }
    }
    for (const p of changed) paths.add(p);
  }
  return paths;
}

/** The paths an agent session's turns changed (what its Changes view reviews), e.g. to credit it in a commit. */
export async function agentChangedPaths(
  deps: Pick<ReviewDeps, "db" | "checkpoints">,
  session: ReviewSession,
): Promise<Set<string>> {
  const log = foldReviewLog(await listEventsOfTypes(deps.db, session.id, REVIEW_EVENT_TYPES));
  if (log.checkpoints.length === 0) return new Set();
  return agentPaths(await deps.checkpoints.open(session.projectId, session.treeId), treeCacheKey(session), log);
}

/** The files the agent's turns changed that differ between `base` and the workspace, with their line counts. */
async function countedChanges(
  s: CheckpointStore,
  cacheKey: string,
  log: ReviewLog,
  base: string,
): Promise<ChangedFile[]> {
  const agents = await agentPaths(s, cacheKey, log);
  const changes = (await s.diff(base, "workspace")).filter(
    (c) => agents.has(c.path) || (c.oldPath !== undefined && agents.has(c.oldPath)),
  );
  const files: ChangedFile[] = [];
  for (const [i, change] of changes.entries()) {
    if (change.binary || i >= MAX_COUNTED_FILES) {
      files.push({ ...change, hunks: null, added: null, removed: null });
      continue;
    }
    const { hunks, binary } = await s.hunks(base, change.path, change.oldPath ? { oldPath: change.oldPath } : {});
    files.push({ ...change, binary, hunks: binary ? null : hunks.length, ...lineCounts(hunks) });
  }
  return files;
}

/** What the session's review shows in all: files, and lines added and removed (what the sessions board counts). */
export async function sessionChangeCounts(
  deps: Pick<ReviewDeps, "db" | "checkpoints">,
  session: ReviewSession,
): Promise<{ filesChanged: number; linesAdded: number; linesRemoved: number }> {
  const log = foldReviewLog(await listEventsOfTypes(deps.db, session.id, REVIEW_EVENT_TYPES));
  if (!log.baseId) return { filesChanged: 0, linesAdded: 0, linesRemoved: 0 };
  const files = await countedChanges(
    await deps.checkpoints.open(session.projectId, session.treeId),
    treeCacheKey(session),
    log,
    log.baseId,
  );
  return {
    filesChanged: files.length,
    linesAdded: files.reduce((n, f) => n + (f.added ?? 0), 0),
    linesRemoved: files.reduce((n, f) => n + (f.removed ?? 0), 0),
  };
}

export function sessionReview(deps: ReviewDeps, session: ReviewSession) {
  const store = () => deps.checkpoints.open(session.projectId, session.treeId);
  const load = async (): Promise<ReviewLog> =>
    foldReviewLog(await listEventsOfTypes(deps.db, session.id, REVIEW_EVENT_TYPES));

  /** The checkpoint to diff against: a chosen turn's, else the session's review base. */
  function baseOf(log: ReviewLog, sinceCheckpointId?: string): string | null {
    if (!sinceCheckpointId) return log.baseId;
    if (!log.checkpoints.some((c) => c.checkpointId === sinceCheckpointId)) {
      throw new ReviewError(
        "NOT_FOUND",
        "This session has no such checkpoint. List the session's checkpoints to pick one.",
      );
    }
    return sinceCheckpointId;
  }

  function mustHaveBase(log: ReviewLog, sinceCheckpointId?: string): string {
    const base = baseOf(log, sinceCheckpointId);
    if (!base)
      throw new ReviewError(
        "BAD_REQUEST",
        "The agent has not changed any file in this session yet, so there is nothing to review.",
      );
    return base;
  }

  async function changeOf(s: CheckpointStore, base: string, filePath: string): Promise<FileChange | null> {
    return (await s.diff(base, "workspace")).find((c) => c.path === filePath) ?? null;
  }

  /** The path normalized and checked to be inside the workspace (refused with OUTSIDE_WORKSPACE otherwise). */
  async function inside(filePath: string): Promise<string> {
    return (await (await deps.files.openTree(session)).resolve(filePath)).requested;
  }

  async function currentBytes(filePath: string): Promise<Buffer | null> {
    const workspace = await deps.files.openTree(session);
    return workspace.readBytes(filePath).catch((error: unknown) => {
      if (isWorkspaceError(error) && error.code === "NOT_FOUND") return null;
      throw error;
    });
  }

  /** A decision made on a version of the file that is no longer the one on disk is refused. */
  async function refuseIfChanged(filePath: string, expectedVersion: string | null | undefined) {
    if (expectedVersion === undefined) return;
    const bytes = await currentBytes(filePath);
    if ((bytes ? versionOf(bytes) : null) !== expectedVersion) {
      throw new ReviewError(
        "CONFLICT",
        `'${filePath}' changed since you looked at it. Look at its changes again, then decide.`,
      );
    }
  }

  async function refuseWhileRunning() {
    const row = await findSession(deps.db, session.id);
    if (deps.agent.isRunning(session.id) || row?.status === "running" || row?.status === "waiting_approval") {
      throw new ReviewError(
        "CONFLICT",
        "The agent is working in this session. Stop its turn (or answer what it asks), then restore.",
      );
    }
  }

  async function moveBase(
    log: ReviewLog,
    next: string,
    filePath: string,
    action: "accept_hunk" | "accept_file",
    by: Person,
  ) {
    await deps.agent.log.append(
      session.id,
      "review_base",
      { baseId: next, previousBaseId: log.baseId!, path: filePath, action, by },
      by.id,
    );
  }

  return {
    /** Files the agent changed that differ between the base (or a chosen turn's checkpoint) and the workspace. */
    async changes(input: { sinceCheckpointId?: string }): Promise<{ baseId: string | null; files: ChangedFile[] }> {
      const log = await load();
      const base = baseOf(log, input.sinceCheckpointId);
      if (!base) return { baseId: null, files: [] };
      return { baseId: base, files: await countedChanges(await store(), treeCacheKey(session), log, base) };
    },

    /** One file: its text at the base and now, the version now, and the hunks between them. */
    async file(input: { path: string; sinceCheckpointId?: string }) {
      input = { ...input, path: await inside(input.path) };
      const log = await load();
      const base = mustHaveBase(log, input.sinceCheckpointId);
      const s = await store();
      const change = await changeOf(s, base, input.path);
      const oldPath = change?.oldPath;
      for (let attempt = 0; ; attempt++) {
        const fileHunks = await s.hunks(base, input.path, oldPath ? { oldPath } : {});
        const current = await currentBytes(input.path);
        // The file may change between the two reads (the agent is working): read again.
        if ((current ? versionOf(current) : null) !== fileHunks.version && attempt < 2) continue;
        const original = await s.fileAt(base, oldPath ?? input.path);
        const name = path.posix.basename(input.path);
        return {
          baseId: base,
          path: input.path,
          oldPath: oldPath ?? null,
          status: change?.status ?? ("unchanged" as const),
          binary: fileHunks.binary,
          original: fileHunks.binary ? null : textOf(original, name),
          current: fileHunks.binary ? null : textOf(current, name),
          version: fileHunks.version,
          hunks: fileHunks.hunks,
        };
      }
    },

    /** Puts one hunk back as it was at the base, in the workspace file. */
    async rejectHunk(input: {
      path: string;
      hunkIndex: number;
      expectedVersion?: string | null;
      sinceCheckpointId?: string;
    }) {
      input = { ...input, path: await inside(input.path) };
      const log = await load();
      const base = mustHaveBase(log, input.sinceCheckpointId);
      const s = await store();
      const oldPath = (await changeOf(s, base, input.path))?.oldPath;
      return s.rejectHunk({
        baseId: base,
        path: input.path,
        hunkIndex: input.hunkIndex,
        expectedVersion: input.expectedVersion,
        ...(oldPath ? { oldPath } : {}),
      });
    },

    /** Puts a whole file back as it was at the base (a renamed file returns to its old path). */
    async rejectFile(input: { path: string; expectedVersion?: string | null; sinceCheckpointId?: string }) {
      input = { ...input, path: await inside(input.path) };
      const log = await load();
      const base = mustHaveBase(log, input.sinceCheckpointId);
      const s = await store();
      await refuseIfChanged(input.path, input.expectedVersion);
      const oldPath = (await changeOf(s, base, input.path))?.oldPath;
      await s.restoreFile(base, input.path);
      if (oldPath) await s.restoreFile(base, oldPath);
      return { path: input.path, oldPath: oldPath ?? null };
    },

    /** Keeps one hunk: the session's review base takes it, so it no longer shows as a change. */
    acceptHunk(input: { path: string; hunkIndex: number; expectedVersion?: string | null; by: Person }) {
      return serial(session.id, async () => {
        input = { ...input, path: await inside(input.path) };
        const log = await load();
        const base = mustHaveBase(log);
        const s = await store();
        const oldPath = (await changeOf(s, base, input.path))?.oldPath;
        const { baseId } = await s.acceptHunk({
          baseId: base,
          path: input.path,
          hunkIndex: input.hunkIndex,
          expectedVersion: input.expectedVersion,
          ...(oldPath ? { oldPath } : {}),
        });
        await moveBase(log, baseId, input.path, "accept_hunk", input.by);
        return { baseId };
      });
    },

    /** Keeps a whole file as it is in the workspace. */
    acceptFile(input: { path: string; expectedVersion?: string | null; by: Person }) {
      return serial(session.id, async () => {
        input = { ...input, path: await inside(input.path) };
        const log = await load();
        const base = mustHaveBase(log);
        const s = await store();
        await refuseIfChanged(input.path, input.expectedVersion);
        const oldPath = (await changeOf(s, base, input.path))?.oldPath;
        const { baseId } = await s.acceptFile({ baseId: base, path: input.path, ...(oldPath ? { oldPath } : {}) });
        await moveBase(log, baseId, input.path, "accept_file", input.by);
        return { baseId };
      });
    },

    /** The session's checkpoints, one per turn that changed something, oldest first. */
    async checkpoints() {
      const log = await load();
      return { baseId: log.baseId, checkpoints: log.checkpoints, restores: log.restores };
    },

    /** What restoring a checkpoint would change, and what rewinding would hide. */
    async preview(input: { checkpointId: string }) {
      const log = await load();
      const checkpoint = log.checkpoints.find((c) => c.checkpointId === input.checkpointId);
      if (!checkpoint)
        throw new ReviewError(
          "NOT_FOUND",
          "This session has no such checkpoint. List the session's checkpoints to pick one.",
        );
      const files = await (await store()).previewRestore(checkpoint.checkpointId);
      return { checkpoint, files, rewind: { fromSeq: checkpoint.turnStartSeq, toSeq: log.lastSeq } };
    },

    /** Makes the files what they were before the checkpoint's turn; optionally hides that turn and later ones from the conversation. */
    restore(input: { checkpointId: string; rewindConversation: boolean; by: Person }) {
      return serial(session.id, async () => {
        await refuseWhileRunning();
        const log = await load();
        const checkpoint = log.checkpoints.find((c) => c.checkpointId === input.checkpointId);
        if (!checkpoint)
          throw new ReviewError(
            "NOT_FOUND",
            "This session has no such checkpoint. List the session's checkpoints to pick one.",
          );
        const result = await (await store()).restore(checkpoint.checkpointId);
        const event = await deps.agent.log.append(
          session.id,
          "restore",
          {
            checkpointId: checkpoint.checkpointId,
            turnId: checkpoint.turnId,
            undoId: result.undoId,
            files: result.changed.map((c) => c.path),
            failed: result.failed,
            rewound: input.rewindConversation,
            by: input.by,
          },
          input.by.id,
        );
        if (input.rewindConversation) {
          await deps.agent.log.append(
            session.id,
            "rewind",
            { fromSeq: checkpoint.turnStartSeq, toSeq: event.seq - 1, undoId: result.undoId },
            input.by.id,
          );
        }
        return { undoId: result.undoId, files: result.changed, failed: result.failed };
      });
    },

    /** Undoes a restore: the files go back to how they were just before it, and its rewind is lifted. */
    undoRestore(input: { undoId: string; by: Person }) {
      return serial(session.id, async () => {
        await refuseWhileRunning();
        const log = await load();
        const restore = log.restores.find((r) => r.undoId === input.undoId);
        if (!restore) throw new ReviewError("NOT_FOUND", "This session has no restore with that id.");
        if (restore.undone) throw new ReviewError("CONFLICT", "This restore was already undone.");
        const later =
          log.checkpoints.some((c) => c.seq > restore.seq) ||
          log.restores.some((r) => r.seq > restore.seq && !r.undone);
        if (later) {
          throw new ReviewError(
            "CONFLICT",
            "Files changed through the agent or another restore since then, so undoing would lose that work. Restore a checkpoint instead.",
          );
        }
        const result = await (await store()).restore(input.undoId);
        await deps.agent.log.append(session.id, "restore_undone", { undoId: input.undoId, by: input.by }, input.by.id);
        return { files: result.changed, failed: result.failed };
      });
    },
  };
}

function textOf(bytes: Buffer | null, name: string): string | null {
  if (!bytes) return null;
  const decoded = decode(bytes, name);
  return decoded.kind === "text" ? decoded.content : null;
}

function lineCounts(hunks: Hunk[]): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const hunk of hunks) {
    for (const line of hunk.lines) {
      if (line.startsWith("+")) added += 1;
      else if (line.startsWith("-")) removed += 1;
    }
  }
  return { added, removed };
}
