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
import { decode } from "@/server/workspace/text-codec";
import { foldReviewLog, REVIEW_EVENT_TYPES, type ReviewLog } from "@/lib/review-log";
import { countedChanges, type ChangedFile, type ChangedSession } from "@/server/services/session-changes";

// Reviewing an agent session's changes and rolling them back, on top of the project's checkpoint
// store: which base to diff against comes from the session's log (lib/review-log.ts), and every
// decision that changes that base, or the files wholesale, is recorded there as an event.

export type ReviewDeps = { db: Db; agent: AgentRuntime; checkpoints: CheckpointStores; files: ProjectFiles };
/** `treeId`: the tree the session works in (lib/trees.ts); its checkpoints and files are that tree's. */
export type ReviewSession = ChangedSession;
type Person = { id: string; name: string };

export class ReviewError extends Error {
  constructor(
    readonly code: "NOT_FOUND" | "CONFLICT" | "BAD_REQUEST",
    message: string,
  ) {
    super(message);
  }
}

// Accepting moves the base; two accepts at once must not both start from the same base.
const queues = new Map<string, Promise<unknown>>();
function serial<T>(sessionId: string, task: () => Promise<T>): Promise<T> {
  const run = (queues.get(sessionId) ?? Promise.resolve()).then(task);
  const tail = run.catch(() => undefined);
  queues.set(sessionId, tail);
  void tail.then(() => queues.get(sessionId) === tail && queues.delete(sessionId));
  return run;
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
      return { baseId: base, files: await countedChanges(await store(), treeKey(session), log, base) };
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
