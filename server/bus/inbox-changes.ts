// Tells a person's open tabs that their inbox changed (a notification arrived, some were read);
// each tab then reads its unread count and list again. In-process here;
// server/cluster/pg-inbox-changes.ts carries it to every instance through Postgres LISTEN/NOTIFY.

export interface InboxChanges {
  publish(personId: string): void;
  /** Calls `listener` whenever the person's inbox changes; returns the function that stops listening. */
  subscribe(personId: string, listener: () => void): () => void;
}

export function createInboxChanges(): InboxChanges {
  const listeners = new Map<string, Set<() => void>>();
  return {
    publish(personId) {
      for (const listener of [...(listeners.get(personId) ?? [])]) {
        try {
          listener();
        } catch (error) {
          console.error("inbox listener failed:", error);
        }
      }
    },
    subscribe(personId, listener) {
      let set = listeners.get(personId);
      if (!set) listeners.set(personId, (set = new Set()));
      set.add(listener);
      return () => {
        set.delete(listener);
        if (set.size === 0 && listeners.get(personId) === set) listeners.delete(personId);
      };
    },
  };
}
