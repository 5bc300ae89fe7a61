import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTurnJobs, type TurnJobHandlers } from "@/server/cluster/turn-jobs";
import type { LapsedJob } from "@/server/db/repositories/turn-jobs";
import { createAgentHarness } from "@/server/test/agent-harness";

// The lease protocol on a real Postgres, with short leases: two instances never both hold a turn,
// a lapsed lease goes to exactly one of the instances looking for it, and a lost lease is noticed.

let h: Awaited<ReturnType<typeof createAgentHarness>>;
beforeAll(async () => {
  h = await createAgentHarness();
});
afterAll(() => h.dispose());

// Heartbeats well inside the lease, so a loaded machine does not make a live holder look dead.
const timing = { leaseMs: 2_000, heartbeatMs: 250, pollMs: 100 };

/** An instance as the runtime drives it: it renews what it claimed or took over. */
function instance(name: string) {
  const mine = new Set<string>();
  const events = { lost: [] as string[], cancel: [] as string[], takenOver: [] as LapsedJob[] };
  const jobs = createTurnJobs({ db: h.env.services.db, mode: "cluster", instanceId: name, ...timing });
  const handlers: TurnJobHandlers = {
    leased: () => [...mine],
    lost: (id) => events.lost.push(id),
    cancel: (id) => events.cancel.push(id),
    takeOver: (job) => {
      mine.add(job.sessionId);
      events.takenOver.push(job);
    },
  };
  return { jobs, events, handlers, mine };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("turn jobs", () => {
  it("lets one instance hold a turn while it renews the lease, and hands a lapsed one to exactly one other", async () => {
    const session = await h.newSession({ replies: [] });
    const a = instance("a");
    const b = instance("b");
    const c = instance("c");
    expect(await a.jobs.claim(session.id, h.user.id)).toBe(true);
    a.mine.add(session.id);
    a.jobs.start(a.handlers);
    b.jobs.start(b.handlers);
    c.jobs.start(c.handlers);

    await sleep(4_500); // two lease lengths: a's heartbeat keeps it
    expect(await b.jobs.claim(session.id, h.user.id)).toBe(false);
    expect(await a.jobs.held(session.id)).toBe(true);
    expect([...b.events.takenOver, ...c.events.takenOver]).toEqual([]);

    a.jobs.stop(); // a dies
    await h.waitFor(async () => b.events.takenOver.length + c.events.takenOver.length > 0, 10_000);
    await sleep(4_500); // the new holder renews it: nobody takes it again
    expect([...b.events.takenOver, ...c.events.takenOver]).toEqual([{ sessionId: session.id, userId: h.user.id }]);
    b.jobs.stop();
    c.jobs.stop();
  }, 30_000);

  it("tells an instance that lost its lease, and passes a cancel asked through another instance to the owner", async () => {
    const session = await h.newSession({ replies: [] });
    const a = instance("a2");
    expect(await a.jobs.claim(session.id, h.user.id)).toBe(true);
    a.mine.add(session.id);
    const b = instance("b2");
    expect(await b.jobs.requestCancel(session.id)).toBe(true);
    a.jobs.start(a.handlers);
    await h.waitFor(async () => a.events.cancel.includes(session.id), 5_000);

    await a.jobs.release(session.id);
    expect(await b.jobs.requestCancel(session.id)).toBe(false); // no live job: nothing to cancel remotely
    expect(await b.jobs.claim(session.id, h.user.id)).toBe(true);
    await h.waitFor(async () => a.events.lost.includes(session.id), 5_000);
    a.jobs.stop();
  }, 30_000);
});
