import type { CheckpointStore } from "@/server/workspace";
import type { TurnContext } from "@/server/agent/turn-context";

// Before the first change of each turn the workspace is snapshotted into the project's checkpoint
// store (outside the project, under the data directory), and a `checkpoint` event records it in
// the session's log. That is what the Changes view diffs against and what "Restore to before this
// turn" goes back to. Whether the turn already has one is read from the log (turn-state.ts), so a
// turn resumed after a restart does not take a second.

/** Opens the checkpoint store of a project's tree (its main tree without `treeId`); the runtime gets it from the server's services. */
export type CheckpointStores = { open(projectId: string, treeId?: string | null): Promise<CheckpointStore> };

/**
 * Returns the hook to call before a change: the first call of the turn snapshots and records the
 * checkpoint, later (and concurrent) calls wait for that one. A failed snapshot is logged and the
 * change goes ahead: it is better to lose the undo point than to stop the agent's work.
 */
export function turnCheckpointer(
  turn: Pick<TurnContext, "log" | "sessionId" | "snapshot">,
  turnId: string,
  /** The turn already has a checkpoint (from the log). */
  taken: boolean,
): () => Promise<void> {
  let pending: Promise<void> | null = taken || !turn.snapshot ? Promise.resolve() : null;
  return () => {
    pending ??= (async () => {
      const label = `Before turn ${turnId}`;
      try {
        const snap = await turn.snapshot!(label);
        await turn.log.append(turn.sessionId, "checkpoint", {
          checkpointId: snap.id,
          turnId,
          label,
          filesChanged: snap.filesChanged,
        });
      } catch (error) {
        console.error(`checkpoint before turn ${turnId} of session ${turn.sessionId} failed:`, error);
      }
    })();
    return pending;
  };
}
