import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { createAgentRuntime } from "@/server/agent/runtime";
import { createAgentStore } from "@/server/services/agent-store";
import { createTurnJobs } from "@/server/cluster/turn-jobs";
import { testSandbox } from "@/server/test/sandbox";
import { createAgentHarness, testTools, typesOf } from "@/server/test/agent-harness";

// What a turn does after its end (gives its lease back, looks for a message sent meanwhile) runs
// unawaited. Here the database holds it up, or fails under it, as a shutdown or a restarting
// database would: the runtime's dispose waits for it, and an error in it is logged, not thrown
// (an unhandled rejection stops the server). The locks are taken from connections of the test's own.

let h: Awaited<ReturnType<typeof createAgentHarness>>;
const clients: pg.Client[] = [];
beforeAll(async () => {
  h = await createAgentHarness();
});
afterEach(async () => {
  for (const client of clients.splice(0)) await client.end().catch(() => {});
});
afterAll(() => h.dispose());

/** A runtime of the test's own, holding leases in turn_job as the server's does, so the test can dispose it. */
function ownRuntime() {
  const services = h.env.services;
  const runtime = createAgentRuntime({
    store: createAgentStore(services.db),
    bus: h.env.bus,
    models: services.models,
    openWorkspace: (projectId) => services.files.open(projectId),
    baseTools: testTools(h.toolLog),
    sandbox: testSandbox("none"),
    maxRetries: 0,
    turnJobs: createTurnJobs({ db: services.db, mode: "single" }),
  });
  services.agent = runtime;
  return runtime;
}

async function connect() {
  const client = new pg.Client({ connectionString: h.env.databaseUrl });
  await client.connect();
  clients.push(client);
  return client;
}

/**
 * The backend of a statement that waits for a lock, once there is one. `by` must not be in a
 * transaction: Postgres shows a transaction the activity as it was at its first look.
 */
async function waitingStatement(by: pg.Client, like: string): Promise<number> {
  let pid = 0;
  await h.waitFor(async () => {
    const { rows } = await by.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ILIKE $1`,
      [like],
    );
    pid = rows[0]?.pid ?? 0;
    return pid !== 0;
  });
  return pid;
}

/** Sends a message whose answer streams for a while, and locks the turn's job row while it runs. */
async function lockTurnJobDuringTurn(sessionId: string, locker: pg.Client) {
  await h.caller.session.send({ sessionId, text: "Count to four" });
  await h.waitFor(
    async () => (await locker.query(`SELECT 1 FROM turn_job WHERE "sessionId" = $1`, [sessionId])).rowCount === 1,
  );
  await locker.query("BEGIN");
  await locker.query(`SELECT 1 FROM turn_job WHERE "sessionId" = $1 FOR UPDATE`, [sessionId]);
}

const slowReply = { replies: [{ text: "one two three four", delayMs: 80 }] };

describe("after a turn's end", () => {
  it("dispose waits for the turn to give its lease back", async () => {
    const runtime = ownRuntime();
    const session = await h.newSession(slowReply);
    const locker = await connect();
    const watcher = await connect();
    await lockTurnJobDuringTurn(session.id, locker);
    // The turn ends; giving its lease back (deleting that row) now waits for the lock.
    await waitingStatement(watcher, "DELETE%turn_job%");
    expect(typesOf(await h.events(session.id))).toContain("turn_finished");

    const disposed = runtime.dispose().then(() => "disposed");
    expect(await Promise.race([disposed, new Promise((r) => setTimeout(() => r("still waiting"), 300))])).toBe(
      "still waiting",
    );
    await locker.query("COMMIT");
    expect(await disposed).toBe("disposed");
    expect((await watcher.query(`SELECT 1 FROM turn_job WHERE "sessionId" = $1`, [session.id])).rowCount).toBe(0);
  });

  it("logs a database error while looking for a late message, and the server goes on", async () => {
    const runtime = ownRuntime();
    const rejections: unknown[] = [];
    const onRejection = (reason: unknown) => rejections.push(reason);
    process.on("unhandledRejection", onRejection);
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const session = await h.newSession(slowReply);
      const rowLock = await connect();
      const tableLock = await connect();
      const watcher = await connect();
      await lockTurnJobDuringTurn(session.id, rowLock);
      await waitingStatement(watcher, "DELETE%turn_job%");
      // The lease goes back once the row is free; the look at the log after it then waits for the
      // table, and its connection is cut, as a database restart would cut it.
      await tableLock.query("BEGIN");
      await tableLock.query("LOCK TABLE session_event IN ACCESS EXCLUSIVE MODE");
      await rowLock.query("COMMIT");
      const look = await waitingStatement(watcher, "%session_event%");
      await watcher.query("SELECT pg_terminate_backend($1)", [look]);
      await tableLock.query("COMMIT");

      await runtime.dispose();
      await new Promise((r) => setTimeout(r, 50)); // an unhandled rejection is reported after the microtasks
      expect(rejections).toEqual([]);
      expect(errors).toHaveBeenCalledWith(
        expect.stringContaining(`looking for a message sent as the turn of session ${session.id} ended failed`),
        expect.anything(),
      );
      // The turn itself was whole: the log says it finished, and its lease is back.
      expect(typesOf(await h.events(session.id))).toContain("turn_finished");
      expect((await watcher.query(`SELECT 1 FROM turn_job WHERE "sessionId" = $1`, [session.id])).rowCount).toBe(0);
    } finally {
      process.off("unhandledRejection", onRejection);
      errors.mockRestore();
    }
  });
});

describe("a message sent while the server stops", () => {
  it("is stored, and answered when the server starts again", async () => {
    const stopping = ownRuntime();
    const session = await h.newSession({ replies: [{ match: "Still there?", text: "Yes, after the restart." }] });
    await stopping.dispose();
    await h.caller.session.send({ sessionId: session.id, text: "Still there?" });
    expect(typesOf(await h.events(session.id))).toEqual(["user_message"]);

    const started = ownRuntime(); // the next start of the server
    try {
      expect(await started.answerLeftMessages()).toContain(session.id);
      await started.idle(session.id);
      const events = await h.events(session.id);
      expect(typesOf(events)).toContain("turn_finished");
      expect(
        events
          .filter((e) => e.type === "assistant_delta")
          .map((e) => (e.payload as { text: string }).text)
          .join(""),
      ).toBe("Yes, after the restart.");
      // Answered once: a second look finds nothing left.
      expect(await started.answerLeftMessages()).not.toContain(session.id);
    } finally {
      await started.dispose();
    }
  });
});
