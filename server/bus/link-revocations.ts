// Tells live share-link viewers that their link was revoked, so their subscriptions end at once
// (not at their next request), and the preview proxy, which closes the open requests and
// WebSockets of a revoked public preview link. In-process here; server/cluster/pg-access-changes.ts carries it to
// every instance through Postgres LISTEN/NOTIFY.

export type LinkRevocations = ReturnType<typeof createLinkRevocations>;

export function createLinkRevocations() {
  const listeners = new Map<string, Set<() => void>>();
  return {
    publish(linkId: string) {
      for (const listener of listeners.get(linkId) ?? []) listener();
    },
    /** Calls `listener` when the link is revoked; returns the function that stops listening. */
    subscribe(linkId: string, listener: () => void): () => void {
      let set = listeners.get(linkId);
      if (!set) listeners.set(linkId, (set = new Set()));
      set.add(listener);
      return () => {
        set.delete(listener);
        if (set.size === 0 && listeners.get(linkId) === set) listeners.delete(linkId);
      };
    },
  };
}
