import { z } from "zod";
import { createInboxChanges, type InboxChanges } from "@/server/bus/inbox-changes";
import type { NotifyHub } from "@/server/cluster/pg-notify";

// Inbox changes across instances: delivered here at once and sent to the others as a NOTIFY naming
// the person (their tabs read the inbox again). After a lost connection a change may have been
// missed, so every person followed on this instance is told to read again.

const changeSchema = z.object({ p: z.string() });

export function createPgInboxChanges(hub: NotifyHub): InboxChanges {
  const local = createInboxChanges();
  const followed = new Map<string, number>();
  hub.listen("tandem_inbox", (payload) => {
    const change = changeSchema.safeParse(payload);
    if (change.success) local.publish(change.data.p);
  });
  hub.onReconnect(() => {
    for (const personId of followed.keys()) local.publish(personId);
  });
  return {
    publish(personId) {
      local.publish(personId);
      hub.publish("tandem_inbox", { p: personId });
    },
    subscribe(personId, listener) {
      followed.set(personId, (followed.get(personId) ?? 0) + 1);
      const stop = local.subscribe(personId, listener);
      return () => {
        stop();
        const left = (followed.get(personId) ?? 1) - 1;
        if (left > 0) followed.set(personId, left);
        else followed.delete(personId);
      };
    },
  };
}
