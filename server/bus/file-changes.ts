import type { FileChange } from "@/lib/fs-schemas";

// Changes to a project's files, as batches, for its viewers on every instance of a cluster. One
// instance watches a project's disk (the holder of its workspace lease, held-workspace-watch.ts)
// and publishes what it sees; server/cluster/pg-file-changes.ts carries the batches to the other
// instances through Postgres LISTEN/NOTIFY. A single instance watches the disk itself and does not
// use this bus (server/api/routers/fs.ts).

/** A batch of changes, or `reread`: changes may have been missed (a lost bus connection), read the files again. */
export type FileChangeNews = { kind: "changes"; changes: readonly FileChange[] } | { kind: "reread" };

export interface FileChanges {
  publish(projectId: string, changes: readonly FileChange[]): void;
  /** Calls `listener` with the project's news; returns the function that stops listening. */
  subscribe(projectId: string, listener: (news: FileChangeNews) => void): () => void;
}

export function createFileChanges(): FileChanges & { rereadAll(): void } {
  const listeners = new Map<string, Set<(news: FileChangeNews) => void>>();
  const deliver = (projectId: string, news: FileChangeNews) => {
    for (const listener of [...(listeners.get(projectId) ?? [])]) listener(news);
  };
  return {
    publish(projectId, changes) {
      if (changes.length) deliver(projectId, { kind: "changes", changes });
    },
    rereadAll() {
      for (const projectId of [...listeners.keys()]) deliver(projectId, { kind: "reread" });
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
