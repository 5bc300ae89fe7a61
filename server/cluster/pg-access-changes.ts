import { z } from "zod";
import type { Db } from "@/server/db/client";
import { endedShareLinkIds } from "@/server/db/repositories/share-links";
import { endedPreviewLinkIds } from "@/server/db/repositories/preview-ports";
import { concerns, type AccessChange, type AccessChanges, type AccessHolder } from "@/server/bus/access-changes";
import { createLinkRevocations, type LinkRevocations } from "@/server/bus/link-revocations";
import type { NotifyHub } from "@/server/cluster/pg-notify";

// Access changes and share-link revocations across instances: published here, delivered here at
// once and sent to the other instances as a NOTIFY naming who or what changed (each listener
// re-checks through the tables, as on one instance). After a lost connection a change may have
// been missed, so every open connection on this instance re-checks, and every followed share link
// is looked up again.

const accessChangeSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("user"), userId: z.string() }),
  z.object({ kind: z.literal("project"), projectId: z.string() }),
  z.object({ kind: z.literal("session"), sessionId: z.string() }),
]);

export function createPgAccessChanges(hub: NotifyHub): AccessChanges {
  const listeners = new Set<{ holder: AccessHolder; listener: (change: AccessChange) => void }>();
  const deliver = (change: AccessChange) => {
    for (const entry of [...listeners]) if (concerns(change, entry.holder)) entry.listener(change);
  };
  hub.listen("tandem_access", (payload) => {
    const change = accessChangeSchema.safeParse(payload);
    if (change.success) deliver(change.data);
  });
  hub.onReconnect(() => {
    for (const { holder, listener } of [...listeners]) {
      const change: AccessChange | null =
        holder.userId || holder.everyone
          ? { kind: "user", userId: holder.userId ?? "" }
          : holder.projectId
            ? { kind: "project", projectId: holder.projectId }
            : holder.sessionId
              ? { kind: "session", sessionId: holder.sessionId }
              : null;
      if (change) listener(change);
    }
  });
  return {
    publish(change) {
      deliver(change);
      hub.publish("tandem_access", change);
    },
    subscribe(holder, listener) {
      const entry = { holder, listener };
      listeners.add(entry);
      return () => void listeners.delete(entry);
    },
  };
}

export function createPgLinkRevocations(hub: NotifyHub, db: Db): LinkRevocations {
  const local = createLinkRevocations();
  const followed = new Map<string, number>();
  hub.listen("tandem_link", (payload) => {
    const linkId = z.object({ l: z.string() }).safeParse(payload);
    if (linkId.success) local.publish(linkId.data.l);
  });
  hub.onReconnect(() => {
    const ids = [...followed.keys()];
    if (!ids.length) return;
    // Share links and public preview links share the channel: ended means live as neither.
    Promise.all([endedShareLinkIds(db, ids), endedPreviewLinkIds(db, ids)]).then(
      ([shares, previews]) => shares.filter((id) => previews.includes(id)).forEach((id) => local.publish(id)),
      (error: unknown) => console.error("cluster bus: could not re-check share links:", error),
    );
  });
  return {
    publish(linkId) {
      local.publish(linkId);
      hub.publish("tandem_link", { l: linkId });
    },
    subscribe(linkId, listener) {
      followed.set(linkId, (followed.get(linkId) ?? 0) + 1);
      const unsubscribe = local.subscribe(linkId, listener);
      let done = false;
      return () => {
        if (done) return;
        done = true;
        unsubscribe();
        const left = followed.get(linkId)! - 1;
        if (left) followed.set(linkId, left);
        else followed.delete(linkId);
      };
    },
  };
}
