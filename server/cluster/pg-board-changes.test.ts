import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BoardChange } from "@/server/bus/board-changes";
import { createPgBoardChanges } from "@/server/cluster/pg-board-changes";
import { connectTwoNotifyHubs } from "@/server/test/notify-hubs";
import { until } from "@/server/test/until";

// Two instances' board buses on one real Postgres: a change published on one reaches the boards of
// its project on the other (not the other project's), and every board whose instance lost its
// connection is told to read all its rows again.

let hubs: Awaited<ReturnType<typeof connectTwoNotifyHubs>>;
beforeAll(async () => {
  hubs = await connectTwoNotifyHubs();
});
afterAll(async () => {
  await hubs?.close();
});

describe("board changes across instances", () => {
  it("reach the project's boards on the other instance, and a re-read after a lost connection", async () => {
    const busA = createPgBoardChanges(hubs.a);
    const busB = createPgBoardChanges(hubs.b);
    const onA: BoardChange[] = [];
    const onB: BoardChange[] = [];
    const elsewhere: BoardChange[] = [];
    busA.subscribe("p1", (change) => onA.push(change));
    busB.subscribe("p1", (change) => onB.push(change));
    busB.subscribe("p2", (change) => elsewhere.push(change));

    busA.publish({ projectId: "p1", sessionId: "s1", topic: "comments" });
    await until(() => onB.length > 0, "B hearing the change", 10_000);
    expect(onB).toEqual([{ projectId: "p1", sessionId: "s1", topic: "comments" }]);
    expect(onA).toEqual([{ projectId: "p1", sessionId: "s1", topic: "comments" }]);
    expect(elsewhere).toEqual([]);

    const allow = await hubs.cutB();
    busA.publish({ projectId: "p1", sessionId: "s2", topic: "session" });
    await allow();
    await until(() => onB.some((c) => c.sessionId === ""), "B told to read everything again", 10_000);
    // Every board on B reads again, the other project's too: nothing but that reached it.
    expect(elsewhere).toEqual([{ projectId: "p2", sessionId: "", topic: "session" }]);
  });
});
