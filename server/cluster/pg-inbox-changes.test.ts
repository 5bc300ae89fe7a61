import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPgInboxChanges } from "@/server/cluster/pg-inbox-changes";
import { connectTwoNotifyHubs } from "@/server/test/notify-hubs";
import { until } from "@/server/test/until";

// Two instances' inbox buses on one real Postgres: a person's inbox change published on one reaches
// that person's tabs on the other (not another person's), and after a lost connection every person
// followed there is told to read again.

let hubs: Awaited<ReturnType<typeof connectTwoNotifyHubs>>;
beforeAll(async () => {
  hubs = await connectTwoNotifyHubs();
});
afterAll(async () => {
  await hubs?.close();
});

describe("inbox changes across instances", () => {
  it("reach the person's tabs on the other instance, and a re-read after a lost connection", async () => {
    const busA = createPgInboxChanges(hubs.a);
    const busB = createPgInboxChanges(hubs.b);
    let onA = 0;
    let onB = 0;
    let other = 0;
    busA.subscribe("ann", () => onA++);
    busB.subscribe("ann", () => onB++);
    busB.subscribe("bob", () => other++);

    busA.publish("ann");
    await until(() => onB > 0, "B hearing the change", 10_000);
    expect([onA, onB, other]).toEqual([1, 1, 0]);

    const allow = await hubs.cutB();
    busA.publish("ann");
    await allow();
    await until(() => other > 0, "B's followed people told to read again", 10_000);
    expect(onB).toBeGreaterThanOrEqual(2);
  });
});
