import type { LiveItem } from "@/lib/session-events";

// Fan-out of a session's live stream to its subscribers. In one process this is a map of
// listeners; with several server instances, server/cluster/pg-session-bus.ts (Postgres
// LISTEN/NOTIFY, payload = the event's seq, or a small delta) plugs in behind the same interface.
// Delivery is best effort and in publish order per session: subscribers that need completeness
// read the log by seq (server/agent/event-stream.ts), the bus only tells them what is new.

export type SessionListener = (item: LiveItem) => void;

export interface SessionBus {
  publish(sessionId: string, item: LiveItem): void;
  /** Returns the function that unsubscribes. */
  subscribe(sessionId: string, listener: SessionListener): () => void;
  subscriberCount(sessionId: string): number;
}

export function createInProcessBus(): SessionBus {
  const listeners = new Map<string, Set<SessionListener>>();
  return {
    publish(sessionId, item) {
      for (const listener of listeners.get(sessionId) ?? []) {
        try {
          listener(item);
        } catch (error) {
          console.error("session bus listener failed:", error);
        }
      }
    },
    subscribe(sessionId, listener) {
      let set = listeners.get(sessionId);
      if (!set) listeners.set(sessionId, (set = new Set()));
      set.add(listener);
      return () => {
        set.delete(listener);
        if (set.size === 0 && listeners.get(sessionId) === set) listeners.delete(sessionId);
      };
    },
    subscriberCount(sessionId) {
      return listeners.get(sessionId)?.size ?? 0;
    },
  };
}

/** `bus`, also handing every committed event published on it to `tap` (the sessions board follows logs so). */
export function tapCommittedEvents(
  bus: SessionBus,
  tap: (sessionId: string, event: Extract<LiveItem, { kind: "event" }>["event"]) => void,
): SessionBus {
  return {
    publish(sessionId, item) {
      bus.publish(sessionId, item);
      if (item.kind === "event") tap(sessionId, item.event);
    },
    subscribe: (sessionId, listener) => bus.subscribe(sessionId, listener),
    subscriberCount: (sessionId) => bus.subscriberCount(sessionId),
  };
}
