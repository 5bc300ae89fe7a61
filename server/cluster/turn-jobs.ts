import os from "node:os";
import { randomUUID } from "node:crypto";
import type { Db } from "@/server/db/client";
import * as jobs from "@/server/db/repositories/turn-jobs";
import type { LapsedJob } from "@/server/db/repositories/turn-jobs";

// Running turns as jobs in Postgres, each with a lease the running instance renews by heartbeat.
//
// Why one table and not pg-boss (which runs the scheduled tasks): pg-boss 10 fixes a job's expiry
// when it is fetched and cannot renew it, and notices an expired job only on its supervision round.
// A turn may run for an hour (a long build, a person slow to answer is no lease at all), yet an
// instance killed mid-turn must be replaced within seconds; that takes a short lease that is
// renewed, which one row per running turn and SELECT ... FOR UPDATE SKIP LOCKED give directly.
//
// The protocol: an instance claims the session's row before it runs the turn (a row another live
// instance holds means that instance runs it and will read whatever was appended); it renews
// its leases every `heartbeatMs` and deletes the row when the turn ends or waits for a person.
// With `takeOver` (several instances on one database), each instance looks for lapsed leases every
// `pollMs` and continues those turns from the session's log. A lease this instance lost (it was
// presumed dead) stops its turn without writing more.

export type { LapsedJob };

export type TurnJobsMode = "single" | "cluster";

export type TurnJobHandlers = {
  /** The sessions whose turns this instance runs now. */
  leased(): string[];
  /** This instance no longer holds the session's lease: stop its turn without writing. */
  lost(sessionId: string): void;
  /** A person cancelled the turn through another instance. */
  cancel(sessionId: string): void;
  /** A lapsed job is now this instance's: continue the turn. */
  takeOver(job: LapsedJob): void;
};

export type TurnJobs = ReturnType<typeof createTurnJobs>;

export function createTurnJobs(options: {
  db: Db;
  mode: TurnJobsMode;
  instanceId?: string;
  leaseMs?: number;
  heartbeatMs?: number;
  pollMs?: number;
  log?: (line: string) => void;
}) {
  const { db, mode } = options;
  const instanceId = options.instanceId ?? `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const leaseMs = options.leaseMs ?? 6_000;
  const heartbeatMs = options.heartbeatMs ?? 2_000;
  const pollMs = options.pollMs ?? 1_000;
  const log = options.log ?? console.error;
  const timers: NodeJS.Timeout[] = [];

  /** Runs `task` every `ms`, never two rounds at once; a failed round is logged and the next one tries again. */
  function every(ms: number, what: string, task: () => Promise<void>) {
    let busy = false;
    const timer = setInterval(() => {
      if (busy) return;
      busy = true;
      task()
        .catch((error: unknown) => log(`turn jobs: ${what} failed: ${(error as Error).message}`))
        .finally(() => (busy = false));
    }, ms);
    timer.unref();
    timers.push(timer);
  }

  return {
    instanceId,
    mode,

    claim: (sessionId: string, userId: string) =>
      jobs.claimTurnJob(db, { sessionId, userId, ownerId: instanceId, leaseMs }),
    release: (sessionId: string) => jobs.releaseTurnJob(db, sessionId, instanceId),
    held: (sessionId: string) => jobs.turnJobHeld(db, sessionId),
    requestCancel: (sessionId: string) => jobs.requestTurnCancel(db, sessionId),
    /** Lets the lease lapse now, for another instance to take the turn at its next look (a shutdown). */
    handOff: (sessionId: string) => jobs.lapseTurnJob(db, sessionId, instanceId),

    /**
     * At start-up, of the sessions left `running`: those whose turn nobody will continue. Alone on
     * the database, that is all of them (their jobs belonged to the previous process); in a
     * cluster, only those without a job, since a job, live or lapsed, is continued by an instance.
     */
    async orphaned(runningSessionIds: string[]): Promise<string[]> {
      if (mode === "single") {
        await jobs.clearTurnJobs(db);
        return runningSessionIds;
      }
      const withJobs = await jobs.sessionsWithTurnJobs(db, runningSessionIds);
      return runningSessionIds.filter((id) => !withJobs.has(id));
    },

    start(handlers: TurnJobHandlers) {
      every(heartbeatMs, "heartbeat", async () => {
        const mine = handlers.leased();
        if (!mine.length) return;
        const renewed = await jobs.renewTurnJobs(db, instanceId, mine, leaseMs);
        const kept = new Set(renewed.map((r) => r.sessionId));
        for (const id of mine) if (!kept.has(id)) handlers.lost(id);
        for (const row of renewed) if (row.cancelRequested) handlers.cancel(row.sessionId);
      });
      if (mode === "cluster") {
        every(pollMs, "takeover", async () => {
          for (const job of await jobs.takeOverLapsedTurnJobs(db, instanceId, leaseMs, 4)) handlers.takeOver(job);
        });
      }
    },

    stop() {
      for (const timer of timers.splice(0)) clearInterval(timer);
    },
  };
}
