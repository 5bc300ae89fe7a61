import type { Db } from "@/server/db/client";
import { lastSeq as readLastSeq, listEvents } from "@/server/db/repositories/session-events";
import { createInProcessBus, type SessionBus } from "@/server/bus/session-bus";
import type { NotifyHub } from "@/server/cluster/pg-notify";
import type { LiveItem } from "@/lib/session-events";

// The session bus across instances. Subscribers on this instance get what is published here at
// once, in-process. Other instances get a NOTIFY naming the session and the event's seq and read
// the event from the log; a text delta or a tool's progress is provisional and small, so it
// travels in the payload (a piece too large to fit is skipped: the committed event carries it).
// After the connection was lost, every followed session is read again from the last seq seen.

type Message =
  | { s: string; q: number }
  | { s: string; d: Omit<Extract<LiveItem, { kind: "delta" }>, "kind"> }
  | { s: string; p: Omit<Extract<LiveItem, { kind: "progress" }>, "kind"> };

export function createPgSessionBus(hub: NotifyHub, db: Db): SessionBus {
  const local = createInProcessBus();
  /** The highest committed seq delivered here, per session followed on this instance (null: not known yet). */
  const lastSeq = new Map<string, number | null>();
  /** Per session, the reads in flight: remote items are delivered in the order they were sent. */
  const chains = new Map<string, Promise<void>>();

  const deliver = (sessionId: string, item: LiveItem) => {
    if (item.kind === "event" && lastSeq.has(sessionId))
      lastSeq.set(sessionId, Math.max(lastSeq.get(sessionId) ?? 0, item.event.seq));
    local.publish(sessionId, item);
  };

  const inOrder = (sessionId: string, step: () => Promise<void>) => {
    const next = (chains.get(sessionId) ?? Promise.resolve()).then(step).catch((error: unknown) => {
      console.error(`cluster bus: could not read session ${sessionId}'s events:`, error);
    });
    chains.set(sessionId, next);
    void next.then(() => {
      if (chains.get(sessionId) === next) chains.delete(sessionId);
    });
  };

  /** Delivers the committed events after the last one seen here, up to `upTo`. */
  const catchUp = (sessionId: string, upTo = Infinity) =>
    inOrder(sessionId, async () => {
      if (!local.subscriberCount(sessionId)) return;
      const after = lastSeq.get(sessionId) ?? upTo - 1;
      if (!Number.isFinite(after) || after >= upTo) return;
      for (const event of await listEvents(db, sessionId, after, Number.isFinite(upTo) ? upTo - after : 1000)) {
        if (event.seq <= upTo) deliver(sessionId, { kind: "event", event });
      }
    });

  hub.listen("tandem_session", (payload) => {
    const message = payload as Message;
    if (typeof message?.s !== "string" || !local.subscriberCount(message.s)) return;
    if ("q" in message) return catchUp(message.s, message.q);
    if ("d" in message) return inOrder(message.s, async () => deliver(message.s, { kind: "delta", ...message.d }));
    if ("p" in message) return inOrder(message.s, async () => deliver(message.s, { kind: "progress", ...message.p }));
  });
  hub.onReconnect(() => {
    for (const sessionId of lastSeq.keys()) catchUp(sessionId);
  });

  return {
    publish(sessionId, item) {
      deliver(sessionId, item);
      if (item.kind === "event") hub.publish("tandem_session", { s: sessionId, q: item.event.seq });
      else {
        const { kind: _kind, ...rest } = item;
        hub.publish("tandem_session", item.kind === "delta" ? { s: sessionId, d: rest } : { s: sessionId, p: rest });
      }
    },
    subscribe(sessionId, listener) {
      if (!lastSeq.has(sessionId)) {
        lastSeq.set(sessionId, null);
        // The log's end as it is now: after a reconnect, reading goes on from here.
        void readLastSeq(db, sessionId).then(
          (seq) => lastSeq.has(sessionId) && lastSeq.set(sessionId, Math.max(lastSeq.get(sessionId) ?? 0, seq)),
          () => {},
        );
      }
      const unsubscribe = local.subscribe(sessionId, listener);
      return () => {
        unsubscribe();
        if (!local.subscriberCount(sessionId)) lastSeq.delete(sessionId);
      };
    },
    subscriberCount: (sessionId) => local.subscriberCount(sessionId),
  };
}
