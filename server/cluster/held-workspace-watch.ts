import type { FileChange } from "@/lib/fs-schemas";
import type { FileChanges } from "@/server/bus/file-changes";
import { watchWorkspace } from "@/server/workspace";

// In a cluster, the instance holding a project's workspace lease is the one that watches its files,
// for as long as it holds it, and publishes what it sees on the file-change bus: the other
// instances do not watch (on a network volume their watchers would not see the holder's writes).

export type HeldWorkspaceWatch = {
  /** This instance holds the project now: watch it (once). */
  hold(projectId: string): void;
  /** This instance no longer holds the project. */
  drop(projectId: string): void;
  close(): void;
};

export function createHeldWorkspaceWatch(options: {
  fileChanges: FileChanges;
  root: (projectId: string) => Promise<string>;
  log: (line: string) => void;
}): HeldWorkspaceWatch {
  const watching = new Map<string, AbortController>();

  async function follow(projectId: string, stop: AbortController) {
    const changes = watchWorkspace(await options.root(projectId), { signal: stop.signal });
    // The watcher hands its batches over one change at a time, all at once: gather what is there
    // and publish it as one batch, so a burst is a few NOTIFYs rather than one per file.
    let pending: FileChange[] = [];
    for await (const change of changes) {
      if (!pending.length) {
        setImmediate(() => {
          const batch = pending;
          pending = [];
          if (!stop.signal.aborted) options.fileChanges.publish(projectId, batch);
        });
      }
      pending.push(change);
    }
  }

  return {
    hold(projectId) {
      if (watching.has(projectId)) return;
      const stop = new AbortController();
      watching.set(projectId, stop);
      follow(projectId, stop)
        .catch((error: unknown) =>
          options.log(`file changes: could not watch project ${projectId}: ${(error as Error).message}`),
        )
        // The watch ended by itself (the folder went away): the next viewer's claim starts it again.
        .finally(() => watching.get(projectId) === stop && watching.delete(projectId));
    },
    drop(projectId) {
      watching.get(projectId)?.abort();
      watching.delete(projectId);
    },
    close() {
      for (const stop of watching.values()) stop.abort();
      watching.clear();
    },
  };
}
