import type { LapsedJob } from "@/server/cluster/turn-jobs";
import { createLoopLoad } from "@/server/agent/loop-load";
import { runTurn, TurnHandedOver, type TurnEnd } from "@/server/agent/run";
import { answerLeftMessages, interruptCutTurns, type StartUpHost } from "@/server/agent/start-up";
import {
  createAdmission,
  TURN_START_GATE,
  TURN_START_HOLD_MS,
  TURN_STARTS_AT_ONCE,
} from "@/server/agent/turn-admission";
import { createTurnLeases } from "@/server/agent/turn-leases";
import { endRefusedTurn, TurnRevoked } from "@/server/agent/turn-authority";
import { prepareTurn, type KnownSession, type TurnSetup } from "@/server/agent/turn-setup";
import { turnState } from "@/server/agent/turn-state";

// When turns run: at most one per session across the cluster, admitted a few at a time
// (turn-admission.ts) under the session's lease (turn-leases.ts), continued when a message arrives
// as one ends, taken over from an instance that died, resumed after a restart (start-up.ts), and
// stopped on cancel, on delete and at shutdown. What a person asks of a session (session-commands.ts)
// goes through here to start or stop a turn; what a turn does is run.ts.

type StartOptions = {
  resumed?: boolean;
  /** A parent's turn: aborting it aborts this one (a sub-agent). */
  parentSignal?: AbortSignal;
  /** The lease is already this instance's (a lapsed job it took over). */
  claimed?: boolean;
  /** The session and its log as the caller just read them, so the turn does not read them again. */
  known?: KnownSession;
};

/** A turn running in this process: `done` settles when it has left the loop. */
export type RunningTurn = { controller: AbortController; done: Promise<TurnEnd | null> };

export type TurnScheduler = ReturnType<typeof createTurnScheduler>;

export function createTurnScheduler(setup: TurnSetup) {
  const { log, options: o, resources } = setup;
  const { store } = o;
  const active = new Map<string, RunningTurn>();
  /** Every turn started here until it settles, past its end too (lease, late message): dispose waits for them. */
  const turns = new Set<Promise<unknown>>();
  let closing = false;
  const load = createLoopLoad({ loops: o.loops });
  const admit = createAdmission({
    concurrency: o.turnStarts?.atOnce ?? TURN_STARTS_AT_ONCE,
    holdMs: o.turnStarts?.holdMs ?? TURN_START_HOLD_MS,
    gate: { load, ...TURN_START_GATE },
  });
  const endWaiters = new Map<string, Array<(end: TurnEnd) => void>>();
  const endDeps = { store, log, setStatus: setup.setStatus };

  /** An error nobody can act on ended a run: logged for the operator, shown in the session, which is left failed. */
  async function failInternally(sessionId: string, error: unknown, what: string, message: string): Promise<TurnEnd> {
    console.error(`${what} failed:`, error);
    await log
      .append(sessionId, "error", { code: "internal", message, detail: String(error).slice(0, 500) })
      .catch(() => {});
    await setup.setStatus(sessionId, "failed").catch(() => {});
    return { reason: "error", text: "" };
  }

  /** Starts (or continues) the session's turn unless one is already running, here or on another instance. */
  function start(sessionId: string, userId: string, options: StartOptions = {}) {
    const running = active.get(sessionId);
    if (running) return running.done;
    if (closing) return Promise.resolve(null); // shutting down: the message waits in the log for the next start-up (start-up.ts)
    const controller = new AbortController();
    options.parentSignal?.addEventListener("abort", () => controller.abort(), { once: true });
    const done = (async (): Promise<TurnEnd | null> => {
      let end: TurnEnd | null = null;
      let unfollow = () => {};
      const refused = () => (controller.signal.reason instanceof TurnRevoked ? controller.signal.reason.message : null);
      try {
        const prepared = await admit(async () => {
          if (!(await leases.claim(sessionId, userId, options.claimed))) return null;
          // Whether its person and token still may (turn-authority.ts), followed from before the
          // first look, so that an end told while it is looked at is not missed.
          if (o.authority) {
            const turn = { sessionId, userId };
            unfollow = o.authority.follow(turn, (reason) => controller.abort(new TurnRevoked(reason)));
            const reason = await o.authority.refusal(turn);
            if (reason) controller.abort(new TurnRevoked(reason));
          }
          if (refused() !== null) return "refused" as const;
          return prepareTurn(setup, {
            sessionId,
            userId,
            resumed: options.resumed ?? false,
            signal: controller.signal,
            known: options.known,
          });
        });
        if (!prepared) return null;
        end = prepared === "refused" ? await endRefusedTurn(endDeps, sessionId, refused()!) : await runTurn(prepared);
      } catch (error) {
        // Refused while the turn was being prepared: ended as refused, not as an internal error.
        const reason = refused();
        end = reason
          ? await endRefusedTurn(endDeps, sessionId, reason).catch((cause: unknown) =>
              failInternally(sessionId, cause, `ending the refused turn of session ${sessionId}`, reason),
            )
          : await failInternally(
              sessionId,
              error,
              `agent turn of session ${sessionId}`,
              "The agent stopped on an internal error. Resume to try again.",
            );
      } finally {
        unfollow();
        active.delete(sessionId);
      }
      if (end.reason === "handed_over") return end;
      // Released before looking for a late message: a message appended after this look finds no
      // job and starts the turn itself.
      await leases.release(sessionId);
      if (end.reason !== "waiting") {
        for (const resolve of endWaiters.get(sessionId) ?? []) resolve(end);
        endWaiters.delete(sessionId);
        // Every caller leaves this promise unawaited (`void start`): a database error here must
        // not become an unhandled rejection, which would stop the server. The message, if any,
        // is answered at the next send or resume.
        const late =
          end.reason !== "error" &&
          end.reason !== "budget" && // a message sent meanwhile would be refused the same way
          (await hasUnansweredMessage(sessionId, end.finishedSeq).catch((error: unknown) => {
            console.error(`looking for a message sent as the turn of session ${sessionId} ended failed:`, error);
            return false;
          }));
        if (late) void start(sessionId, userId);
      }
      return end;
    })();
    // Until it settles, lease and late-message look included (it leaves `active` before those).
    turns.add(done);
    void done.finally(() => turns.delete(done));
    active.set(sessionId, { controller, done });
    return done;
  }

  /**
   * A message that arrived after the last turn ended (in the moment it was ending). `afterSeq`: the
   * turn's own `turn_finished`, when known; only the log after it is read.
   */
  async function hasUnansweredMessage(sessionId: string, afterSeq = 0) {
    const events = await store.events.list(sessionId, afterSeq);
    const lastEnd = events.findLast((e) => e.type === "turn_finished")?.seq ?? 0;
    return events.some((e) => e.type === "user_message" && e.seq > lastEnd) && !turnState(events).openTurn;
  }

  /** A lapsed job is ours now: continue its turn from the log (a job left between a turn's end and its release only goes). */
  async function continueTurn(job: LapsedJob) {
    const open = turnState(await store.events.list(job.sessionId)).openTurn;
    if (!open && !(await hasUnansweredMessage(job.sessionId))) {
      await leases.drop(job.sessionId);
      return;
    }
    console.log(`took over the turn of session ${job.sessionId} (its instance stopped renewing the lease)`);
    void start(job.sessionId, job.userId, { resumed: true, claimed: true });
  }

  const leases = createTurnLeases(o.turnJobs, log, {
    running: (sessionId) => active.has(sessionId),
    abort: (sessionId, handedOver) =>
      active.get(sessionId)?.controller.abort(handedOver ? new TurnHandedOver() : undefined),
    continueTurn,
  });

  const startUp: StartUpHost = {
    store,
    log,
    leases,
    setStatus: setup.setStatus,
    isRunning: (sessionId) => active.has(sessionId),
    hasUnansweredMessage: (sessionId) => hasUnansweredMessage(sessionId),
    start: (sessionId, userId) => void start(sessionId, userId),
  };

  return {
    start,

    isRunning: (sessionId: string) => active.has(sessionId),

    /** The turn running in this process, if any. */
    running: (sessionId: string): RunningTurn | undefined => active.get(sessionId),

    /** A turn runs here, waits for a person, or runs on another instance: a new one must not start. */
    async busy(session: { id: string; status: string }) {
      return (
        active.has(session.id) || session.status === "waiting_approval" || (await leases.heldElsewhere(session.id))
      );
    },

    /** Asks the instance running the session's turn to cancel it; false when no instance holds it. */
    requestCancel: (sessionId: string) => leases.requestCancel(sessionId),

    /** Resolves with the end of the session's next turn that does not stop to wait (a sub-agent's run). */
    waitForTurnEnd(sessionId: string): Promise<TurnEnd> {
      return new Promise((resolve) => endWaiters.set(sessionId, [...(endWaiters.get(sessionId) ?? []), resolve]));
    },

    /**
     * Runs `work` as the session's turn outside the model loop (a person's direct tool run): it
     * counts as running and cancel aborts it; an internal error fails the session, as a turn's would.
     */
    runAlone(
      sessionId: string,
      userId: string,
      failure: { what: string; message: string },
      work: (signal: AbortSignal) => Promise<TurnEnd>,
    ): Promise<TurnEnd> {
      const controller = new AbortController();
      // Under the same authority as a turn (turn-authority.ts): its end stops the run.
      const unfollow =
        o.authority?.follow({ sessionId, userId }, (reason) => controller.abort(new TurnRevoked(reason))) ?? (() => {});
      const done = work(controller.signal)
        .catch((error: unknown) => failInternally(sessionId, error, failure.what, failure.message))
        .finally(() => {
          unfollow();
          active.delete(sessionId);
        });
      active.set(sessionId, { controller, done });
      return done;
    },

    /** Resolves when the session has no turn running (tests, shutdown). */
    async idle(sessionId: string) {
      while (active.has(sessionId)) await active.get(sessionId)!.done;
    },

    /** Stops the session's turn and frees what it holds in memory (its shell, its log's state); the row stays. */
    async release(sessionId: string) {
      active.get(sessionId)?.controller.abort();
      await active.get(sessionId)?.done;
      log.forget(sessionId);
      await resources.get(sessionId)?.shell.dispose();
      resources.delete(sessionId);
      await o.browsers?.release(sessionId);
    },

    /** At start-up: turns cut off by a crash become `interrupted` (start-up.ts). */
    recover: () => interruptCutTurns(startUp),

    /** At start-up, once the tools are attached: starts the turns of messages left without an answer (start-up.ts). */
    answerLeftMessages: () => answerLeftMessages(startUp),

    /** At shutdown. In a cluster the running turns are handed to the other instances (a rolling restart loses none); alone, they are cancelled. */
    async dispose() {
      closing = true;
      leases.stop();
      load.stop();
      const handOver = leases.handsOver;
      for (const { controller } of active.values()) controller.abort(handOver ? new TurnHandedOver() : undefined);
      await Promise.all([...active.values()].map((a) => a.done));
      await Promise.all(turns);
      if (handOver) await leases.handOffAll();
      await Promise.all([...resources.values()].map((r) => r.shell.dispose()));
      resources.clear();
    },
  };
}
