import type { EventLog } from "@/server/agent/events";
import type { LapsedJob, TurnJobs } from "@/server/cluster/turn-jobs";

// The runtime's side of turns as leased jobs (server/cluster/turn-jobs.ts): which sessions' turn
// jobs this instance holds, claiming and releasing them around a turn, and what the heartbeat
// reports back (a lost lease, a cancel asked through another instance, a lapsed job to continue).
// Without turn jobs (a runtime in a test) every claim succeeds and nothing is held elsewhere.

export type TurnLeaseHost = {
  /** The session's turn runs in this process. */
  running(sessionId: string): boolean;
  /** Stops the turn running here (`handedOver`: another instance carries it on). */
  abort(sessionId: string, handedOver: boolean): void;
  /** A lapsed job, now this instance's, whose turn is not running here: continue it or let it go. */
  continueTurn(job: LapsedJob): Promise<void>;
};

export type TurnLeases = ReturnType<typeof createTurnLeases>;

export function createTurnLeases(jobs: TurnJobs | undefined, log: EventLog, host: TurnLeaseHost) {
  /** Sessions whose turn job this instance holds (renewed by the heartbeat). */
  const leased = new Set<string>();

  jobs?.start({
    leased: () => [...leased],
    lost(sessionId) {
      leased.delete(sessionId);
      host.abort(sessionId, true);
    },
    cancel: (sessionId) => host.abort(sessionId, false),
    takeOver(job) {
      if (host.running(job.sessionId)) {
        leased.add(job.sessionId); // this instance's own lease lapsed while it kept running the turn
        return;
      }
      void host
        .continueTurn(job)
        .catch((error: unknown) => console.error(`taking over the turn of session ${job.sessionId} failed:`, error));
    },
  });

  return {
    /**
     * Takes the session's turn job, so that no other instance runs this turn at the same time; false
     * when another live instance holds it (it reads whatever was appended meanwhile). Another
     * instance may have written to the session since this one last did, so the seq counter is reloaded.
     */
    async claim(sessionId: string, userId: string, alreadyClaimed = false): Promise<boolean> {
      if (!jobs) return true;
      if (!alreadyClaimed && !(await jobs.claim(sessionId, userId))) return false;
      leased.add(sessionId);
      log.forget(sessionId);
      await log.open(sessionId); // a continued turn may stream text before it appends anything
      return true;
    },

    async release(sessionId: string) {
      if (!jobs || !leased.delete(sessionId)) return;
      await jobs
        .release(sessionId)
        .catch((error: unknown) => console.error(`releasing the turn job of session ${sessionId} failed:`, error));
    },

    /** A lapsed job whose turn has nothing left to do: gone without a run. */
    async drop(sessionId: string) {
      await jobs?.release(sessionId);
    },

    /** Another live instance runs this session's turn. */
    async heldElsewhere(sessionId: string): Promise<boolean> {
      return !host.running(sessionId) && !!jobs && (await jobs.held(sessionId));
    },

    /** Asks the instance running the turn to cancel it; false when no instance holds it. */
    async requestCancel(sessionId: string): Promise<boolean> {
      return !!jobs && (await jobs.requestCancel(sessionId));
    },

    /** Of these running sessions, those no live instance holds a lease for (all of them without jobs). */
    async orphaned(sessionIds: string[]): Promise<string[]> {
      return jobs ? jobs.orphaned(sessionIds) : sessionIds;
    },

    /** In a cluster, turns are handed over at shutdown rather than cancelled. */
    handsOver: jobs?.mode === "cluster",

    stop() {
      jobs?.stop();
    },

    /** At shutdown in a cluster: every held job is left for another instance to take at once. */
    async handOffAll() {
      await Promise.all([...leased].map((id) => jobs!.handOff(id).catch(() => {})));
    },
  };
}
