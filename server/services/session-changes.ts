import { treeKey } from "@/lib/trees";
import type { Db } from "@/server/db/client";
import { listEventsOfTypes } from "@/server/db/repositories/session-events";
import type { CheckpointStores } from "@/server/agent/turn-checkpoint";
import type { CheckpointStore } from "@/server/workspace";
import type { FileChange } from "@/server/workspace/checkpoint-tree";
import type { Hunk } from "@/server/workspace/checkpoint-hunks";
import { foldReviewLog, REVIEW_EVENT_TYPES, type ReviewLog } from "@/lib/review-log";

// What an agent session changed: the paths its turns touched, and the files among them that differ
// from the review's base, with their line counts. The review (session-review.ts), the sessions
// board's counts and Source Control's commit credit all read it.

/** `treeId`: the tree the session works in (lib/trees.ts); its checkpoints and files are that tree's. */
export type ChangedSession = { id: string; projectId: string; treeId: string | null };
type ChangeDeps = { db: Db; checkpoints: CheckpointStores };

/** Files past this many get no hunk counts in the list (each count reads the file). */
const MAX_COUNTED_FILES = 300;

export type ChangedFile = FileChange & { hunks: number | null; added: number | null; removed: number | null };

// What one finished turn changed never changes again: kept per (tree, checkpoint, end).
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
export async function agentChangedPaths(deps: ChangeDeps, session: ChangedSession): Promise<Set<string>> {
  const log = foldReviewLog(await listEventsOfTypes(deps.db, session.id, REVIEW_EVENT_TYPES));
  if (log.checkpoints.length === 0) return new Set();
  return agentPaths(await deps.checkpoints.open(session.projectId, session.treeId), treeKey(session), log);
}

/** The files the agent's turns changed that differ between `base` and the workspace, with their line counts. */
export async function countedChanges(
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
  deps: ChangeDeps,
  session: ChangedSession,
): Promise<{ filesChanged: number; linesAdded: number; linesRemoved: number }> {
  const log = foldReviewLog(await listEventsOfTypes(deps.db, session.id, REVIEW_EVENT_TYPES));
  if (!log.baseId) return { filesChanged: 0, linesAdded: 0, linesRemoved: 0 };
  const files = await countedChanges(
    await deps.checkpoints.open(session.projectId, session.treeId),
    treeKey(session),
    log,
    log.baseId,
  );
  return {
    filesChanged: files.length,
    linesAdded: files.reduce((n, f) => n + (f.added ?? 0), 0),
    linesRemoved: files.reduce((n, f) => n + (f.removed ?? 0), 0),
  };
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
