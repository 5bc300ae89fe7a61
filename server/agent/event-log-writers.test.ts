import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEventLog } from "@/server/agent/events";
import { createAgentStore } from "@/server/services/agent-store";
import { createInProcessBus } from "@/server/bus/session-bus";
import { listEvents } from "@/server/db/repositories/session-events";
import { createAgentHarness } from "@/server/test/agent-harness";

// Two instances append to one session (a message sent through one while the other runs the turn):
// each has its own seq counter, loaded once; the log stays gap-free and nothing is lost.

let h: Awaited<ReturnType<typeof createAgentHarness>>;
beforeAll(async () => {
  h = await createAgentHarness();
});
afterAll(() => h.dispose());

describe("event log with two writers", () => {
  it("writes an event whose seq another instance took under the next free seq", async () => {
    const session = await h.newSession({ replies: [] });
    const db = h.env.services.db;
    const a = createEventLog(createAgentStore(db), createInProcessBus());
    const b = createEventLog(createAgentStore(db), createInProcessBus());
    await a.append(session.id, "user_message", { text: "from instance A" }, h.user.id);
    await b.append(session.id, "user_message", { text: "from instance B" }, h.user.id);
    // A's counter still says 2, which B used.
    const late = await a.append(session.id, "user_message", { text: "A again" }, h.user.id);
    expect(late.seq).toBe(3);
    const events = await listEvents(db, session.id);
    expect(events.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(events.map((e) => (e.type === "user_message" ? e.payload.text : ""))).toEqual([
      "from instance A",
      "from instance B",
      "A again",
    ]);
  });
});
