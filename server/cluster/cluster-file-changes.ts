import { REREAD_ALL, type FileChange } from "@/lib/fs-schemas";
import type { FileChanges } from "@/server/bus/file-changes";
import type { WorkspaceHost } from "@/server/cluster/workspace-host";
import { ChangeQueue, type TrackedChange } from "@/server/workspace";

// fs.changes in a cluster: a viewer gets its project's changes from the file-change bus, which the
// project's holder feeds from its watcher (held-workspace-watch.ts), on whichever instance the
// viewer is connected to, the holder included (there too only through the bus: each change once).
// While a viewer is connected the project is kept held, so that someone watches it.

/** How often a viewer's instance makes sure the project is held: under the lease's lapse (6 s). */
const HOLD_EVERY_MS = 3_000;
/** The id of a change from the bus: not a cursor (see below). */
const BUS_EVENT_ID = "bus";

/**
 * fs.changes for one instance of a cluster: `(projectId, signal)` gives a viewer the project's
 * changes. However many viewers a project has here, the instance asks to hold it once per period.
 */
export function createClusterFileFollower(options: {
  fileChanges: FileChanges;
  host: WorkspaceHost;
  log: (line: string) => void;
}) {
  const viewed = new Map<string, { viewers: number; timer: NodeJS.Timeout }>();

  const hold = (projectId: string) =>
    options.host
      .hold(projectId)
      .catch((error: unknown) =>
        options.log(`file changes: could not make sure project ${projectId} is watched: ${(error as Error).message}`),
      );

  function keepHeld(projectId: string): () => void {
    let entry = viewed.get(projectId);
    if (!entry) {
      entry = { viewers: 0, timer: setInterval(() => void hold(projectId), HOLD_EVERY_MS) };
      viewed.set(projectId, entry);
    }
    entry.viewers += 1;
    void hold(projectId);
    const kept = entry;
    return () => {
      kept.viewers -= 1;
      if (kept.viewers > 0) return;
      clearInterval(kept.timer);
      viewed.delete(projectId);
    };
  }

  // The bus carries no position in the holder's stream, so a viewer cannot start from its listing's
  // cursor: its stream starts with REREAD_ALL instead, and it reads its folders again once.
  const bus = (change: FileChange): TrackedChange => ({ id: BUS_EVENT_ID, change });
  return (projectId: string, signal?: AbortSignal): AsyncIterableIterator<TrackedChange> => {
    const changes = new ChangeQueue<TrackedChange>(signal);
    if (changes.closed) return changes;
    const unsubscribe = options.fileChanges.subscribe(projectId, (news) =>
      changes.push(news.kind === "changes" ? news.changes.map(bus) : [bus(REREAD_ALL)]),
    );
    changes.push([bus(REREAD_ALL)]);
    const unhold = keepHeld(projectId);
    changes.onClose(() => {
      unhold();
      unsubscribe();
    });
    return changes;
  };
}
