// Tells a project's sessions board that one of its sessions changed: its state, counts or last
// check ("session"), or its review comments ("comments"). The board then reads that one session's
// row again; nothing else travels. In-process here; server/cluster/pg-board-changes.ts carries it to
// every instance through Postgres LISTEN/NOTIFY.

export type BoardChange = { projectId: string; sessionId: string; topic: "session" | "comments" };

export interface BoardChanges {
  publish(change: BoardChange): void;
  /** Calls `listener` for every change of the project's sessions; returns the function that stops listening. */
  subscribe(projectId: string, listener: (change: BoardChange) => void): () => void;
}

export function createBoardChanges(): BoardChanges {
  const listeners = new Map<string, Set<(change: BoardChange) => void>>();
  return {
    publish(change) {
      for (const listener of [...(listeners.get(change.projectId) ?? [])]) {
        try {
          listener(change);
        } catch (error) {
          console.error("board listener failed:", error);
        }
      }
    },
    subscribe(projectId, listener) {
      let set = listeners.get(projectId);
      if (!set) listeners.set(projectId, (set = new Set()));
      set.add(listener);
      return () => {
        set.delete(listener);
        if (set.size === 0 && listeners.get(projectId) === set) listeners.delete(projectId);
      };
    },
  };
}
