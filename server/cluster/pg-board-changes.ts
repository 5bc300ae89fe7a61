import { z } from "zod";
import { createBoardChanges, type BoardChanges } from "@/server/bus/board-changes";
import type { NotifyHub } from "@/server/cluster/pg-notify";

// Board changes across instances: delivered here at once and sent to the others as a NOTIFY naming
// the project and the session (each board reads the row again). After a lost connection a change
// may have been missed, so every board on this instance is told to read all its rows again
// (a change with an empty sessionId).

const changeSchema = z.object({ p: z.string(), s: z.string(), t: z.enum(["session", "comments"]) });

export function createPgBoardChanges(hub: NotifyHub): BoardChanges {
  const local = createBoardChanges();
  const followed = new Map<string, number>();
  hub.listen("tandem_board", (payload) => {
    const change = changeSchema.safeParse(payload);
    if (change.success) local.publish({ projectId: change.data.p, sessionId: change.data.s, topic: change.data.t });
  });
  hub.onReconnect(() => {
    for (const projectId of followed.keys()) local.publish({ projectId, sessionId: "", topic: "session" });
  });
  return {
    publish(change) {
      local.publish(change);
      hub.publish("tandem_board", { p: change.projectId, s: change.sessionId, t: change.topic });
    },
    subscribe(projectId, listener) {
      followed.set(projectId, (followed.get(projectId) ?? 0) + 1);
      const stop = local.subscribe(projectId, listener);
      return () => {
        stop();
        const left = (followed.get(projectId) ?? 1) - 1;
        if (left > 0) followed.set(projectId, left);
        else followed.delete(projectId);
      };
    },
  };
}
