import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createAgentRuntime } from "@/server/agent/runtime";
import { createAgentStore } from "@/server/services/agent-store";
import { createAdmission, TURN_STARTS_AT_ONCE, type LoadGate } from "@/server/agent/turn-admission";
import { createLoopLoad } from "@/server/agent/loop-load";
import { testSandbox } from "@/server/test/sandbox";
import { createAgentHarness, testTools, typesOf } from "@/server/test/agent-harness";

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

const ticks = () => new Promise((r) => setImmediate(r));

describe("turn admission", () => {
  it("lets in a few starts at a time, the next as one settles, in the order they were asked", async () => {
    const admit = createAdmission({ concurrency: 3, holdMs: 60_000 });
    const gates = Array.from({ length: 5 }, () => deferred<string>());
    const began: number[] = [];
    const results = gates.map((gate, i) =>
      admit(() => {
        began.push(i);
        return gate.promise;
      }),
    );
    const settled = Promise.allSettled(results);
    await ticks();
    expect(began).toEqual([0, 1, 2]);
    gates[1]!.resolve("one");
    await ticks();
    expect(began).toEqual([0, 1, 2, 3]);
    gates[0]!.reject(new Error("zero failed"));
    await ticks();
    expect(began).toEqual([0, 1, 2, 3, 4]);
    for (const [i, gate] of gates.entries()) if (i > 1) gate.resolve(String(i));
    expect(await settled).toEqual([
      { status: "rejected", reason: new Error("zero failed") },
      { status: "fulfilled", value: "one" },
      { status: "fulfilled", value: "2" },
      { status: "fulfilled", value: "3" },
      { status: "fulfilled", value: "4" },
    ]);
  });

  it("a start that waits long holds its place for holdMs only, and still delivers its result", async () => {
    vi.useFakeTimers();
    try {
      const admit = createAdmission({ concurrency: 1, holdMs: 500 });
      const slow = deferred<string>();
      const began: string[] = [];
      const first = admit(() => (began.push("slow"), slow.promise));
      const second = admit(async () => (began.push("next"), "next done"));
      await vi.advanceTimersByTimeAsync(499);
      expect(began).toEqual(["slow"]);
      await vi.advanceTimersByTimeAsync(1);
      expect(began).toEqual(["slow", "next"]);
      expect(await second).toBe("next done");
      slow.resolve("slow done");
      expect(await first).toBe("slow done");
    } finally {
      vi.useRealTimers();
    }
  });

  it("a start that throws at once rejects for its caller and frees its place", async () => {
    const admit = createAdmission({ concurrency: 1, holdMs: 60_000 });
    const thrown = admit(() => {
      throw new Error("no lease");
    });
    await expect(thrown).rejects.toThrow("no lease");
    expect(await admit(async () => "after")).toBe("after");
  });
});

describe("turn admission under load", () => {
  /** A loop whose utilization the test sets. */
  const gateAt = (value: { now: number | null }, maxWaitMs = 5_000): LoadGate => ({
    load: { utilization: () => value.now, stop() {} },
    busyAbove: 0.85,
    maxWaitMs,
    pollMs: 50,
  });

  it("holds a start while the server's loops are busy and lets it in once there is room", async () => {
    vi.useFakeTimers();
    try {
      const load = { now: 0.97 as number | null };
      const admit = createAdmission({ concurrency: 8, holdMs: 500, gate: gateAt(load) });
      const began: string[] = [];
      const done = admit(async () => (began.push("start"), "started"));
      await vi.advanceTimersByTimeAsync(1_000);
      expect(began).toEqual([]);
      load.now = 0.4;
      await vi.advanceTimersByTimeAsync(50);
      expect(began).toEqual(["start"]);
      expect(await done).toBe("started");
    } finally {
      vi.useRealTimers();
    }
  });

  it("lets a start in after maxWaitMs however busy the loops stay, and at once while nothing is measured yet", async () => {
    vi.useFakeTimers();
    try {
      const load = { now: 1 as number | null };
      const admit = createAdmission({ concurrency: 8, holdMs: 500, gate: gateAt(load, 2_000) });
      const began: string[] = [];
      void admit(async () => began.push("waited"));
      await vi.advanceTimersByTimeAsync(1_950);
      expect(began).toEqual([]);
      await vi.advanceTimersByTimeAsync(100);
      expect(began).toEqual(["waited"]);
      load.now = null;
      void admit(async () => began.push("unmeasured"));
      await vi.advanceTimersByTimeAsync(0);
      expect(began).toEqual(["waited", "unmeasured"]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("measures this thread's loop: near full while it computes, low while it waits", async () => {
    const load = createLoopLoad({ windowMs: 100 });
    try {
      expect(load.utilization()).toBeNull(); // nothing measured before the first window
      await new Promise((r) => setTimeout(r, 350));
      expect(load.utilization()).toBeLessThan(0.5);
      // Busy for a few windows, as a burst of turn starts would keep it.
      const until = Date.now() + 450;
      while (Date.now() < until) {
        await new Promise<void>((r) => {
          const spin = Date.now() + 20;
          while (Date.now() < spin);
          setImmediate(r);
        });
      }
      expect(load.utilization()).toBeGreaterThan(0.85);
    } finally {
      load.stop();
    }
  });
});

describe("the runtime's turn starts", () => {
  let h: Awaited<ReturnType<typeof createAgentHarness>>;
  beforeAll(async () => {
    h = await createAgentHarness();
  });
  afterAll(() => h.dispose());

  it("messages sent at once prepare a few turns at a time, and every turn answers", async () => {
    const services = h.env.services;
    // The workspace is opened as a turn is prepared: held here, it shows how many are being prepared at once.
    let preparing = 0;
    let most = 0;
    const held = deferred();
    const runtime = createAgentRuntime({
      store: createAgentStore(services.db),
      bus: h.env.bus,
      models: services.models,
      openWorkspace: async (projectId) => {
        most = Math.max(most, ++preparing);
        await held.promise;
        preparing -= 1;
        return services.files.open(projectId);
      },
      baseTools: testTools(h.toolLog),
      sandbox: testSandbox("none"),
      maxRetries: 0,
      // A start holds its place here until the workspace opens, however slow the machine is.
      turnStarts: { atOnce: TURN_STARTS_AT_ONCE, holdMs: 60_000 },
    });
    services.agent = runtime;
    try {
      const count = TURN_STARTS_AT_ONCE + 2;
      h.model.load({ replies: Array.from({ length: count }, () => ({ text: "Done." })) });
      const sessions = await Promise.all(
        Array.from({ length: count }, () => h.caller.session.create({ projectId: h.project.id })),
      );
      await Promise.all(sessions.map((s) => h.caller.session.send({ sessionId: s.id, text: "Go" })));
      await h.waitFor(() => preparing >= TURN_STARTS_AT_ONCE);
      await new Promise((r) => setTimeout(r, 200));
      expect(preparing).toBe(TURN_STARTS_AT_ONCE);
      held.resolve();
      for (const s of sessions) await runtime.idle(s.id);
      for (const s of sessions) expect(typesOf(await h.events(s.id))).toContain("turn_finished");
      expect(most).toBe(TURN_STARTS_AT_ONCE);
    } finally {
      held.resolve();
      await runtime.dispose();
      services.agent = h.agent;
    }
  });
});
