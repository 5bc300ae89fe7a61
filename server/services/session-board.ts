import type { BoardChange, BoardChanges } from "@/server/bus/board-changes";
import type { CheckpointStores } from "@/server/agent/turn-checkpoint";
import type { Db } from "@/server/db/client";
import { listComments } from "@/server/db/repositories/review-comments";
import { findSession } from "@/server/db/repositories/sessions";
import {
  listBoardRows,
  saveChangeCounts,
  saveLastCheck,
  type BoardRow,
} from "@/server/db/repositories/session-summaries";
import { addressComments } from "@/server/services/review-comments";
import { sessionChangeCounts } from "@/server/services/session-changes";
import { looksLikeCheck } from "@/lib/check-command";
import type { SessionEvent } from "@/lib/session-events";
import { parseDisplay } from "@/lib/tool-display";

// The live board of a project's sessions. Its rows are one query (session-summaries.ts); what a row
// shows beyond the session's own columns is kept up to date from the session's log as it is
// written (`observe`, fed every committed event by the session bus): the last test or check
// command from a shell call's result, and what the session changed (its review's count) when a
// turn ends or its review moves, never per streamed token. Each change is told to the project's
// boards (BoardChanges), which read that one row again.

export type BoardUpdate =
  | { kind: "rows"; rows: BoardRow[] }
  | { kind: "row"; row: BoardRow }
  | { kind: "removed"; sessionId: string };

export type SessionBoard = ReturnType<typeof createSessionBoard>;

/** Changes that arrive within this long of each other reach a board as one read per session. */
const SETTLE_MS = 100;
const PROJECTS_CACHED = 10_000;

/** Events after which the row looks different (state, what it waits for, when it last moved). */
const ROW_EVENTS = new Set<SessionEvent["type"]>([
  "user_message",
  "turn_started",
  "status",
  "approval_requested",
  "approval_resolved",
  "error",
]);
/** Events after which what the session changed is counted again. */
const RECOUNT_EVENTS = new Set<SessionEvent["type"]>(["turn_finished", "review_base", "restore", "restore_undone"]);

export function createSessionBoard(deps: { db: Db; checkpoints: CheckpointStores; changes: BoardChanges }) {
  const projectIds = new Map<string, string>();
  const work = new Map<string, Promise<void>>();

  async function projectOf(sessionId: string): Promise<string | null> {
    const known = projectIds.get(sessionId);
    if (known) return known;
    const session = await findSession(deps.db, sessionId);
    if (!session || session.parentId) return null;
    if (projectIds.size >= PROJECTS_CACHED) projectIds.delete(projectIds.keys().next().value!);
    projectIds.set(sessionId, session.projectId);
    return session.projectId;
  }

  /** One session's updates in order, each after the last, failures logged (the board is a view). */
  function inOrder(sessionId: string, task: (projectId: string) => Promise<void>) {
    const next = (work.get(sessionId) ?? Promise.resolve())
      .then(async () => {
        const projectId = await projectOf(sessionId);
        if (!projectId) return;
        await task(projectId);
        deps.changes.publish({ projectId, sessionId, topic: "session" });
      })
      .catch((error: unknown) => console.error(`sessions board: could not update session ${sessionId}:`, error));
    work.set(sessionId, next);
    void next.then(() => work.get(sessionId) === next && work.delete(sessionId));
  }

  return {
    /** Called with each committed event of any session (server/bus/session-bus.ts's tap). */
    observe(sessionId: string, event: SessionEvent) {
      if (ROW_EVENTS.has(event.type)) return inOrder(sessionId, async () => {});
      if (event.type === "tool_result" && event.payload.toolName === "shell") {
        const display = parseDisplay(event.payload.display);
        if (display?.kind !== "terminal" || display.background || !looksLikeCheck(display.command)) return;
        return inOrder(sessionId, () =>
          saveLastCheck(deps.db, sessionId, {
            command: display.command,
            exitCode: display.exitCode,
            at: event.createdAt,
          }),
        );
      }
      if (!RECOUNT_EVENTS.has(event.type)) return;
      inOrder(sessionId, async (projectId) => {
        // Counted in the session's own tree (a branch session's worktree, else the main tree).
        const session = { id: sessionId, projectId, treeId: (await findSession(deps.db, sessionId))?.treeId ?? null };
        await saveChangeCounts(deps.db, sessionId, await sessionChangeCounts(deps, session));
        if (event.type === "turn_finished" && event.payload.endCheckpointId) {
          const turn = { turnId: event.payload.turnId, endCheckpointId: event.payload.endCheckpointId };
          if (await addressComments(deps, session, turn))
            deps.changes.publish({ projectId, sessionId, topic: "comments" });
        }
      });
    },

    /** A session was created, renamed, deleted or had its comments changed by a person. */
    changed(projectId: string, sessionId: string, topic: BoardChange["topic"] = "session") {
      deps.changes.publish({ projectId, sessionId, topic });
    },

    rows: (projectId: string) => listBoardRows(deps.db, projectId),

    /** Resolves when every update under way is written: shutting down waits for it before the database closes. */
    async settled() {
      while (work.size > 0) await Promise.all(work.values());
    },

    /** The board's rows now, then each session's row again when it changes, until `signal` ends or it is returned. */
    stream(projectId: string, signal: AbortSignal | undefined): AsyncIterableIterator<BoardUpdate> {
      return follow(deps.changes, projectId, signal, async (dirty): Promise<BoardUpdate[]> => {
        if (dirty === null || dirty.has("")) return [{ kind: "rows", rows: await listBoardRows(deps.db, projectId) }];
        const updates: BoardUpdate[] = [];
        for (const sessionId of dirty) {
          const [row] = await listBoardRows(deps.db, projectId, sessionId);
          updates.push(row ? { kind: "row", row } : { kind: "removed", sessionId });
        }
        return updates;
      });
    },

    /** The session's review comments now, and again each time they change, until `signal` ends or it is returned. */
    comments(session: { id: string; projectId: string }, signal: AbortSignal | undefined) {
      return follow(
        deps.changes,
        session.projectId,
        signal,
        async () => [await listComments(deps.db, session.id)],
        (change) => change.topic === "comments" && (change.sessionId === session.id || change.sessionId === ""),
      );
    },
  };
}

/**
 * Follows a project's board changes: `read(null)` first, then `read(ids)` with the sessions that
 * changed, gathered for SETTLE_MS so a burst costs one read of each. An iterator rather than a
 * generator, so that ending it (the signal, or `return()` when access ends) stops it at once even
 * while it waits for a change.
 */
function follow<T>(
  changes: BoardChanges,
  projectId: string,
  signal: AbortSignal | undefined,
  read: (dirty: Set<string> | null) => Promise<T[]>,
  wanted: (change: BoardChange) => boolean = () => true,
): AsyncIterableIterator<T> {
  const dirty = new Set<string>();
  const ready: T[] = [];
  let started = false;
  let done = false;
  let wake: (() => void) | null = null;
  const stop = changes.subscribe(projectId, (change) => {
    if (!wanted(change)) return;
    dirty.add(change.sessionId);
    wake?.();
  });
  const end = () => {
    if (done) return;
    done = true;
    stop();
    signal?.removeEventListener("abort", end);
    wake?.();
  };
  if (signal?.aborted) end();
  else signal?.addEventListener("abort", end, { once: true });
  const iterator: AsyncIterableIterator<T> = {
    async next() {
      while (!done) {
        if (ready.length) return { value: ready.shift()!, done: false };
        if (!started) {
          started = true;
          ready.push(...(await read(null)));
          continue;
        }
        if (dirty.size === 0) {
          await new Promise<void>((resolve) => (wake = resolve));
          wake = null;
          continue;
        }
        await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
        const ids = new Set(dirty);
        dirty.clear();
        ready.push(...(await read(ids)));
      }
      return { value: undefined, done: true };
    },
    async return() {
      end();
      return { value: undefined, done: true };
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}
