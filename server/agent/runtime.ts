import type { AgentSession } from "@/server/agent/agent-store";
import type { SessionStatus } from "@/lib/session-events";
import { createEventLog } from "@/server/agent/events";
import { streamSessionEvents } from "@/server/agent/event-stream";
import { parseModelId } from "@/server/agent/providers";
import { rulesForAlways, rulesSchema } from "@/server/agent/policy";
import { callPlanOf } from "@/server/agent/call-binding";
import { runTurn, TurnHandedOver, type TurnEnd } from "@/server/agent/run";
import type { LapsedJob } from "@/server/cluster/turn-jobs";
import { createTurnLeases } from "@/server/agent/turn-leases";
import { MAX_MENTIONS, resolveMentions } from "@/server/agent/mentions";
import { compactBetweenTurns } from "@/server/agent/compaction";
import { AgentRuntimeError } from "@/server/agent/runtime-error";
import type { AgentRuntimeOptions } from "@/server/agent/runtime-options";
import type { SessionResources } from "@/server/agent/session-tools";
import { prepareTurn, type KnownSession, type TurnSetup } from "@/server/agent/turn-setup";
import {
  createAdmission,
  TURN_START_GATE,
  TURN_START_HOLD_MS,
  TURN_STARTS_AT_ONCE,
} from "@/server/agent/turn-admission";
import { createLoopLoad } from "@/server/agent/loop-load";
import { answerLeftMessages, interruptCutTurns, type StartUpHost } from "@/server/agent/start-up";
import { createOwnTools } from "@/server/agent/own-tools";
import { runSubagents } from "@/server/agent/subagents";
import { createSubagentHost } from "@/server/agent/subagent-host";
import { runToolDirectly } from "@/server/agent/direct-run";
import type { Delegator } from "@/server/tools/delegate";
import { closeCalls } from "@/server/agent/tool-calls";
import { turnState } from "@/server/agent/turn-state";

// The agent runtime: sessions, turns, approvals and the live stream, for any caller (the tRPC
// routers, a sub-agent, a test). It knows nothing of HTTP; errors a caller can act on are
// AgentRuntimeError with a code the router maps to a TRPCError.

export { AgentRuntimeError };
export type { AgentRuntimeOptions };

export type Person = { id: string; name: string };
export type AgentRuntime = ReturnType<typeof createAgentRuntime>;

export function createAgentRuntime(o: AgentRuntimeOptions) {
  const { store } = o;
  const log = createEventLog(store, o.bus);
  const active = new Map<string, { controller: AbortController; done: Promise<TurnEnd | null> }>();
  /** Every turn started here until it settles, past its end too (lease, late message): dispose waits for them. */
  const turns = new Set<Promise<unknown>>();
  let closing = false;
  /** Turn starts, a few at a time (turn-admission.ts). */
  const load = createLoopLoad({ loops: o.loops });
  const admit = createAdmission({
    concurrency: o.turnStarts?.atOnce ?? TURN_STARTS_AT_ONCE,
    holdMs: o.turnStarts?.holdMs ?? TURN_START_HOLD_MS,
    gate: { load, ...TURN_START_GATE },
  });
  const endWaiters = new Map<string, Array<(end: TurnEnd) => void>>();
  const resources = new Map<string, SessionResources>();
  const delegator: Delegator = (input) => runSubagents(subagentHost, input);
  const ownTools = createOwnTools(store, delegator);
  const setup: TurnSetup = {
    log,
    options: o,
    ownTools,
    delegator,
    resources,
    setStatus: (sessionId, status, reason) => setStatus(sessionId, status, reason),
  };

  async function mustFind(sessionId: string) {
    const session = await store.sessions.find(sessionId);
    if (!session) throw new AgentRuntimeError("NOT_FOUND", "No such session; it may have been deleted.");
    return session;
  }

  async function setStatus(sessionId: string, status: SessionStatus, reason?: string) {
    if (await store.sessions.setStatus(sessionId, status)) await log.append(sessionId, "status", { status, reason });
  }

  /** An error nobody can act on ended a run: logged for the operator, shown in the session, which is left failed. */
  async function failInternally(sessionId: string, error: unknown, what: string, message: string): Promise<TurnEnd> {
    console.error(`${what} failed:`, error);
    await log
      .append(sessionId, "error", { code: "internal", message, detail: String(error).slice(0, 500) })
      .catch(() => {});
    await setStatus(sessionId, "failed").catch(() => {});
    return { reason: "error", text: "" };
  }

  /** The person a turn works for: whoever wrote the last message, else the session's author. */
  async function turnUser(sessionId: string, fallback: string): Promise<string> {
    const events = await store.events.list(sessionId);
    return events.findLast((e) => e.type === "user_message")?.authorId ?? fallback;
  }

  /**
   * Starts (or continues) the session's turn unless one is already running, here or on another instance.
   * `known`: the session and its log as the caller just read them, so the turn does not read them again.
   */
  function start(
    sessionId: string,
    userId: string,
    options: { resumed?: boolean; parentSignal?: AbortSignal; claimed?: boolean; known?: KnownSession } = {},
  ) {
    const running = active.get(sessionId);
    if (running) return running.done;
    if (closing) return Promise.resolve(null); // shutting down: the message waits in the log for the next start-up (start-up.ts)
    const controller = new AbortController();
    options.parentSignal?.addEventListener("abort", () => controller.abort(), { once: true });
    const done = (async (): Promise<TurnEnd | null> => {
      let end: TurnEnd | null = null;
      try {
        const prepared = await admit(async () =>
          (await leases.claim(sessionId, userId, options.claimed))
            ? prepareTurn(setup, {
                sessionId,
                userId,
                resumed: options.resumed ?? false,
                signal: controller.signal,
                known: options.known,
              })
            : null,
        );
        if (!prepared) return null;
        end = await runTurn(prepared);
      } catch (error) {
        end = await failInternally(
          sessionId,
          error,
          `agent turn of session ${sessionId}`,
          "The agent stopped on an internal error. Resume to try again.",
        );
      } finally {
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

  /** Stops the session's turn and frees what it holds in memory (its shell, its log's state); the row stays. */
  async function release(sessionId: string) {
    active.get(sessionId)?.controller.abort();
    await active.get(sessionId)?.done;
    log.forget(sessionId);
    await resources.get(sessionId)?.shell.dispose();
    resources.delete(sessionId);
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
    setStatus,
    isRunning: (sessionId) => active.has(sessionId),
    hasUnansweredMessage: (sessionId) => hasUnansweredMessage(sessionId),
    start: (sessionId, userId) => void start(sessionId, userId),
  };

  function waitForTurnEnd(sessionId: string): Promise<TurnEnd> {
    return new Promise((resolve) => endWaiters.set(sessionId, [...(endWaiters.get(sessionId) ?? []), resolve]));
  }

  const subagentHost = createSubagentHost({
    store,
    log,
    bus: o.bus,
    baseTools: o.baseTools,
    ownTools,
    openWorkspace: o.openWorkspace,
    mustFind,
    isRunning: (sessionId) => active.has(sessionId),
    start: (sessionId, userId, options) => start(sessionId, userId, options),
    waitForTurnEnd,
  });

  return {
    log,
    stats: log.stats,

    async createSession(input: { projectId: string; title?: string; model?: string; authorId: string }) {
      const model = input.model ?? o.models.defaultModel;
      if (!model) {
        throw new AgentRuntimeError(
          "PRECONDITION_FAILED",
          'No model is configured. Set TANDEM_MODEL or a provider\'s API key (see docs/configuration.md, "Model providers").',
        );
      }
      try {
        parseModelId(model);
      } catch (error) {
        throw new AgentRuntimeError("BAD_REQUEST", (error as Error).message);
      }
      return store.sessions.create({
        projectId: input.projectId,
        title: input.title?.trim() || "New session",
        authorId: input.authorId,
        model,
      });
    },

    /** Appends a person's message and starts a turn, or lets the running/waiting one pick it up. */
    /**
     * `images`: hashes of images attached to this session (attachImage); unknown ones are refused.
     * `session`: its row as the caller's access check read it moments ago, so it is not read again.
     */
    async send(input: {
      sessionId: string;
      text: string;
      user: Person;
      images?: string[];
      mentions?: string[];
      timeZone?: string;
      session?: AgentSession;
    }) {
      const session = input.session?.id === input.sessionId ? input.session : await mustFind(input.sessionId);
      const refs = [...new Set(input.mentions ?? [])].slice(0, MAX_MENTIONS);
      const mentions = refs.length
        ? await resolveMentions(
            await prepareTurn(setup, {
              sessionId: session.id,
              userId: input.user.id,
              resumed: false,
              signal: AbortSignal.timeout(120_000),
            }),
            refs,
          )
        : [];
      const wanted = [...new Set(input.images ?? [])];
      const images = await store.images.findRefs(session.id, wanted);
      if (images.length !== wanted.length)
        throw new AgentRuntimeError(
          "BAD_REQUEST",
          "An attached image is not stored with this session; attach it again.",
        );
      const ordered = wanted.map((hash) => images.find((i) => i.hash === hash)!);
      const event = await log.append(
        session.id,
        "user_message",
        {
          text: input.text,
          authorName: input.user.name,
          ...(ordered.length ? { images: ordered } : {}),
          ...(mentions.length ? { mentions } : {}),
          ...(input.timeZone ? { timeZone: input.timeZone } : {}),
        },
        input.user.id,
      );
      if (active.has(session.id) || session.status === "waiting_approval" || (await leases.heldElsewhere(session.id)))
        return event;
      const events = await store.events.list(session.id);
      const state = turnState(events);
      if (state.pendingCalls.length) {
        await closeCalls(
          log,
          session.id,
          state.pendingCalls[0]!.payload.turnId,
          state.pendingCalls,
          "the turn was interrupted before this call ran.",
          state.startedCalls,
        );
      }
      void start(session.id, input.user.id, { known: { session, events } });
      return event;
    },

    /** `/compact`: summarises the whole conversation now, between turns (compaction.ts). */
    async compact(input: { sessionId: string }) {
      const session = await mustFind(input.sessionId);
      const busy = active.has(session.id) || session.status === "waiting_approval";
      return compactBetweenTurns({ store, log, models: o.models, sessionId: session.id, modelId: session.model, busy });
    },

    async cancel(input: { sessionId: string; user: Person }) {
      const session = await mustFind(input.sessionId);
      const running = active.get(session.id);
      for (const child of await store.sessions.listChildren(session.id)) {
        active.get(child.id)?.controller.abort();
      }
      if (running) {
        running.controller.abort();
        await running.done;
        return;
      }
      if (await leases.requestCancel(session.id)) return; // the instance running it stops at its next heartbeat
      if (session.status !== "waiting_approval") return;
      for (const approval of await store.approvals.listPending(session.id)) {
        if (
          !(await store.approvals.resolve(approval.id, {
            status: "rejected",
            decision: "reject",
            feedback: "The turn was cancelled.",
            resolvedById: input.user.id,
          }))
        )
          continue;
        await log.append(
          session.id,
          "approval_resolved",
          {
            approvalId: approval.id,
            toolCallId: approval.toolCallId,
            decision: "reject",
            feedback: "The turn was cancelled.",
            by: input.user,
          },
          input.user.id,
        );
      }
      const state = turnState(await store.events.list(session.id));
      const turnId = state.openTurn?.turnId ?? "none";
      await closeCalls(log, session.id, turnId, state.pendingCalls, "the turn was cancelled.", state.startedCalls);
      if (state.openTurn)
        await log.append(session.id, "turn_finished", { turnId, reason: "cancelled", steps: state.steps });
      await setStatus(session.id, "idle");
    },

    /** Continues an interrupted or failed session from its log. */
    async resume(input: { sessionId: string; user: Person }) {
      const session = await mustFind(input.sessionId);
      if (active.has(session.id) || session.status === "waiting_approval" || (await leases.heldElsewhere(session.id)))
        return { status: session.status };
      void start(session.id, await turnUser(session.id, input.user.id), { resumed: true });
      return { status: "running" as const };
    },

    async respond(input: {
      approvalId: string;
      decision: "approve" | "approve_always" | "reject";
      feedback?: string;
      answer?: string | string[];
      user: Person;
    }) {
      const approval = await store.approvals.find(input.approvalId);
      if (!approval) throw new AgentRuntimeError("NOT_FOUND", "No such approval request.");
      if (approval.status !== "pending") throw new AgentRuntimeError("CONFLICT", "This request was already answered.");
      const question = approval.kind === "question";
      if (question && input.decision !== "reject" && (input.answer === undefined || input.answer.length === 0)) {
        throw new AgentRuntimeError("BAD_REQUEST", "This is a question: give an answer (or reject it to decline).");
      }
      const status = input.decision === "reject" ? "rejected" : question ? "answered" : "approved";
      const resolved = await store.approvals.resolve(approval.id, {
        status,
        decision: input.decision,
        feedback: input.feedback,
        answer: input.answer,
        resolvedById: input.user.id,
      });
      if (!resolved) throw new AgentRuntimeError("CONFLICT", "Someone else answered this request first.");
      if (input.decision === "approve_always" && !question) {
        const session = await mustFind(approval.sessionId);
        const current = rulesSchema.safeParse(session.allowRules).data ?? [];
        await store.sessions.setAllowRules(session.id, [
          ...current,
          ...rulesForAlways(approval.toolName, approval.input, callPlanOf(approval.plan)),
        ]);
      }
      await log.append(
        approval.sessionId,
        "approval_resolved",
        {
          approvalId: approval.id,
          toolCallId: approval.toolCallId,
          decision: input.decision,
          feedback: input.feedback,
          answer: input.answer,
          by: input.user,
        },
        input.user.id,
      );
      if ((await store.approvals.listPending(approval.sessionId)).length === 0) {
        void start(approval.sessionId, await turnUser(approval.sessionId, input.user.id));
      }
      return { sessionId: approval.sessionId, status };
    },

    stream(sessionId: string, afterSeq: number, signal?: AbortSignal) {
      return streamSessionEvents({ store, bus: o.bus, log, sessionId, afterSeq, signal });
    },

    /** At start-up: turns cut off by a crash become `interrupted` (start-up.ts). */
    recover: () => interruptCutTurns(startUp),

    /** At start-up, once the tools are attached: starts the turns of messages left without an answer (start-up.ts). */
    answerLeftMessages: () => answerLeftMessages(startUp),

    /** Runs one tool for a person, outside the model loop (the settings page's workflow Run), as a turn of its own. */
    async runToolFor(input: { sessionId: string; toolName: string; input: unknown; user: Person }) {
      const session = await mustFind(input.sessionId);
      if (active.has(session.id) || session.status === "waiting_approval" || (await leases.heldElsewhere(session.id))) {
        throw new AgentRuntimeError(
          "CONFLICT",
          "The agent is busy in this session; wait for it to finish, or use a new session.",
        );
      }
      const controller = new AbortController();
      const done = runToolDirectly(setup, {
        sessionId: session.id,
        userId: input.user.id,
        toolName: input.toolName,
        input: input.input,
        signal: controller.signal,
      })
        .catch((error: unknown) =>
          failInternally(
            session.id,
            error,
            `direct ${input.toolName} run in session ${session.id}`,
            `${input.toolName} stopped on an internal error.`,
          ),
        )
        .finally(() => active.delete(session.id));
      active.set(session.id, { controller, done });
      return done;
    },

    isRunning: (sessionId: string) => active.has(sessionId),

    /** Resolves when the session has no turn running (tests, shutdown). */
    async idle(sessionId: string) {
      while (active.has(sessionId)) await active.get(sessionId)!.done;
    },

    async deleteSession(sessionId: string) {
      await release(sessionId);
      await store.sessions.delete(sessionId);
    },

    /** Stops every turn of a project and frees its sessions' shells, before the project is deleted. */
    async stopProject(projectId: string) {
      for (const id of await store.sessions.listIdsOfProject(projectId)) await release(id);
    },

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
