import { z } from "zod";
import { createPresence, type Presence, type PresenceEntry } from "@/server/bus/presence";
import type { NotifyHub } from "@/server/cluster/pg-notify";

// Presence and typing across instances. Presence is ephemeral, so it has no table: each instance
// keeps its own watchers (the in-process Presence) and, whenever a session's watchers or typers
// change here, sends the other instances its whole list for that session. A session's presence is
// the union of every instance's list. Lists are sent again every few seconds and forgotten when an
// instance stops sending them (it died), and after a lost connection every instance is asked for
// its lists again.

const REFRESH_MS = 5_000;
const FORGET_MS = 15_000;
/** Past this many entries from one instance (a quarter of it, with long names), the rest are left out: a NOTIFY payload is under 8 kB. */
const MAX_ENTRIES = 40;

const messageSchema = z.union([
  z.object({
    n: z.string(),
    s: z.string(),
    e: z.array(
      z.object({
        key: z.string(),
        userId: z.string().nullable(),
        name: z.string(),
        guest: z.boolean(),
        place: z.string().max(4096).optional(),
        typing: z.boolean(),
      }),
    ),
    t: z.array(z.string()),
  }),
  z.object({ n: z.string(), hello: z.literal(true) }),
]);

export function createPgPresence(hub: NotifyHub, options: { typingMs?: number } = {}): Presence {
  const local = createPresence(options);
  /** sessionId -> instanceId -> its watchers, who types there, and when the list came. */
  const remote = new Map<string, Map<string, { entries: PresenceEntry[]; typing: string[]; at: number }>>();
  const listeners = new Map<string, Set<(entries: PresenceEntry[]) => void>>();
  /** Sessions with watchers here, each with the stop of its local subscription. */
  const followed = new Map<string, () => void>();

  const snapshot = (sessionId: string): PresenceEntry[] => {
    const merged = new Map<string, PresenceEntry>();
    const parts = [
      { entries: local.snapshot(sessionId), typing: local.typingKeys(sessionId) },
      ...(remote.get(sessionId)?.values() ?? []),
    ];
    // Someone may watch on one instance and type through another (each request may land anywhere).
    const typing = new Set(parts.flatMap((part) => part.typing));
    for (const { entries } of parts) {
      for (const entry of entries) {
        const seen = merged.get(entry.key);
        merged.set(entry.key, {
          ...(seen ?? entry),
          typing: (seen?.typing ?? false) || entry.typing || typing.has(entry.key),
        });
      }
    }
    return [...merged.values()];
  };
  const changed = (sessionId: string) => {
    const entries = snapshot(sessionId);
    for (const listener of listeners.get(sessionId) ?? []) listener(entries);
  };
  const announce = (sessionId: string) => {
    const entries = local.snapshot(sessionId);
    const typing = local.typingKeys(sessionId);
    for (const most of [MAX_ENTRIES, MAX_ENTRIES / 4]) {
      if (
        hub.publish("tandem_presence", {
          n: hub.instanceId,
          s: sessionId,
          e: entries.slice(0, most),
          t: typing.slice(0, most),
        })
      )
        return;
    }
  };
  const follow = (sessionId: string) => {
    if (followed.has(sessionId)) return;
    followed.set(
      sessionId,
      local.subscribe(sessionId, (entries) => {
        announce(sessionId);
        changed(sessionId);
        if (!entries.length && !local.typingKeys(sessionId).length && !listeners.get(sessionId)?.size) {
          followed.get(sessionId)?.();
          followed.delete(sessionId);
        }
      }),
    );
  };

  hub.listen("tandem_presence", (payload) => {
    const message = messageSchema.safeParse(payload);
    if (!message.success) return;
    if ("hello" in message.data) {
      for (const sessionId of followed.keys()) announce(sessionId);
      return;
    }
    const { n, s, e, t } = message.data;
    let instances = remote.get(s);
    if (!instances) remote.set(s, (instances = new Map()));
    if (e.length || t.length) instances.set(n, { entries: e, typing: t, at: Date.now() });
    else instances.delete(n);
    if (!instances.size) remote.delete(s);
    changed(s);
  });
  hub.onReconnect(() => {
    for (const sessionId of followed.keys()) announce(sessionId);
    hub.publish("tandem_presence", { n: hub.instanceId, hello: true });
  });
  setInterval(() => {
    for (const sessionId of followed.keys())
      if (local.snapshot(sessionId).length || local.typingKeys(sessionId).length) announce(sessionId);
    const old = Date.now() - FORGET_MS;
    for (const [sessionId, instances] of remote) {
      let dropped = false;
      for (const [instance, list] of instances) if (list.at < old) dropped = instances.delete(instance) || dropped;
      if (!instances.size) remote.delete(sessionId);
      if (dropped) changed(sessionId);
    }
  }, REFRESH_MS).unref();
  // Whoever is watching elsewhere is asked for at start-up.
  hub.publish("tandem_presence", { n: hub.instanceId, hello: true });

  return {
    snapshot,
    typingKeys: (sessionId) => [
      ...new Set(
        [
          local.typingKeys(sessionId),
          ...[...(remote.get(sessionId)?.values() ?? [])].map((part) => part.typing),
        ].flat(),
      ),
    ],
    join(sessionId, watcher) {
      follow(sessionId);
      return local.join(sessionId, watcher);
    },
    setTyping(sessionId, key, isTyping) {
      follow(sessionId);
      local.setTyping(sessionId, key, isTyping);
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
  };
}
