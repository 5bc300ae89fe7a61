// Who is watching a session and who is typing in it. Ephemeral: kept in memory, never stored.
// With several server instances, server/cluster/pg-presence.ts shares each instance's part.

export type Watcher = {
  key: string;
  userId: string | null;
  name: string;
  guest: boolean;
  /** Where in the room they are: in a project's open-files room, the file they have open. */
  place?: string;
};

/** The room of a project's files open live: one entry per person and file (the explorer's presence). */
export const openFilesRoom = (projectId: string) => `files:${projectId}`;
export type PresenceEntry = Watcher & { typing: boolean };

const TYPING_MS = 5_000;

export type Presence = ReturnType<typeof createPresence>;

export function createPresence(options: { typingMs?: number } = {}) {
  const typingMs = options.typingMs ?? TYPING_MS;
  // sessionId -> watcher key -> { watcher, connections }
  const sessions = new Map<string, Map<string, { watcher: Watcher; connections: number }>>();
  const typing = new Map<string, Map<string, NodeJS.Timeout>>();
  const listeners = new Map<string, Set<(entries: PresenceEntry[]) => void>>();

  function snapshot(sessionId: string): PresenceEntry[] {
    const typers = typing.get(sessionId);
    return [...(sessions.get(sessionId)?.values() ?? [])].map(({ watcher }) => ({
      ...watcher,
      typing: typers?.has(watcher.key) ?? false,
    }));
  }

  function changed(sessionId: string) {
    const entries = snapshot(sessionId);
    for (const listener of listeners.get(sessionId) ?? []) listener(entries);
  }

  return {
    snapshot,

    /** Who types in the session here, watching here or not (another instance may show their view). */
    typingKeys(sessionId: string): string[] {
      return [...(typing.get(sessionId)?.keys() ?? [])];
    },

    /** Counts one open view of the session; the returned function ends it. */
    join(sessionId: string, watcher: Watcher): () => void {
      let watchers = sessions.get(sessionId);
      if (!watchers) sessions.set(sessionId, (watchers = new Map()));
      const entry = watchers.get(watcher.key) ?? { watcher, connections: 0 };
      entry.connections += 1;
      watchers.set(watcher.key, entry);
      changed(sessionId);
      let left = false;
      return () => {
        if (left) return;
        left = true;
        entry.connections -= 1;
        if (entry.connections === 0) {
          watchers.delete(watcher.key);
          if (watchers.size === 0 && sessions.get(sessionId) === watchers) sessions.delete(sessionId);
        }
        changed(sessionId);
      };
    },

    /** Marks the person as typing for a few seconds (the composer calls this while they type). */
    setTyping(sessionId: string, key: string, isTyping: boolean) {
      let typers = typing.get(sessionId);
      if (!typers) typing.set(sessionId, (typers = new Map()));
      const was = typers.has(key);
      clearTimeout(typers.get(key));
      typers.delete(key);
      if (isTyping) typers.set(key, setTimeout(() => this.setTyping(sessionId, key, false), typingMs).unref());
      if (typers.size === 0) typing.delete(sessionId);
      if (was !== isTyping) changed(sessionId);
    },

    subscribe(sessionId: string, listener: (entries: PresenceEntry[]) => void): () => void {
      let set = listeners.get(sessionId);
      if (!set) listeners.set(sessionId, (set = new Set()));
      set.add(listener);
      return () => {
        set.delete(listener);
        if (set.size === 0 && listeners.get(sessionId) === set) listeners.delete(sessionId);
      };
    },
  };
}
