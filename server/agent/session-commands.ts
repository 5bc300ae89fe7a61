import type { AgentSession } from "@/server/agent/agent-store";
import { callPlanOf } from "@/server/agent/call-binding";
import { compactBetweenTurns } from "@/server/agent/compaction";
import { runToolDirectly } from "@/server/agent/direct-run";
import { streamSessionEvents } from "@/server/agent/event-stream";
import { MAX_MENTIONS, resolveMentions } from "@/server/agent/mentions";
import { rulesForAlways, rulesSchema } from "@/server/agent/policy";
import { parseModelId } from "@/server/agent/providers";
import { AgentRuntimeError } from "@/server/agent/runtime-error";
import { closeCalls } from "@/server/agent/call-results";
import type { TurnScheduler } from "@/server/agent/turn-scheduler";
import { prepareTurn, type TurnSetup } from "@/server/agent/turn-setup";
import { turnState } from "@/server/agent/turn-state";

// What people (and the routers for them) ask of a session: create it, send a message, answer an
// approval or a question, cancel, resume, compact, run a tool by hand, delete it, watch its log.
// Each command checks what it may do now, writes to the session's log, and leaves starting and
// stopping the turn to the scheduler (turn-scheduler.ts).

export type Person = { id: string; name: string };

/** The session, or NOT_FOUND for the caller. */
export async function mustFindSession(setup: TurnSetup, sessionId: string): Promise<AgentSession> {
  const session = await setup.options.store.sessions.find(sessionId);
  if (!session) throw new AgentRuntimeError("NOT_FOUND", "No such session; it may have been deleted.");
  return session;
}

export function createSessionCommands(setup: TurnSetup, turns: TurnScheduler) {
  const { log, options: o } = setup;
  const { store } = o;
  const mustFind = (sessionId: string) => mustFindSession(setup, sessionId);

  /** The person a turn works for: whoever wrote the last message, else the session's author. */
  async function turnUser(sessionId: string, fallback: string): Promise<string> {
    const events = await store.events.list(sessionId);
    return events.findLast((e) => e.type === "user_message")?.authorId ?? fallback;
  }

  return {
    /** `treeId`: the session works in that worktree (lib/trees.ts); one of its own is created with `id` = `treeId`. */
    async createSession(input: {
      projectId: string;
      title?: string;
      model?: string;
      authorId: string;
      id?: string;
      treeId?: string;
    }) {
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
        ...(input.id ? { id: input.id } : {}),
        ...(input.treeId ? { treeId: input.treeId } : {}),
      });
    },

    /**
     * Appends a person's message and starts a turn, or lets the running/waiting one pick it up.
     * `images`: hashes of images attached to this session (attachImage); unknown ones are refused.
     * `session`: its row as the caller's access check read it moments ago, so it is not read again.
     */
    async send(input: {
      sessionId: string;
      text: string;
      user: Person;
      /** The API token the message was sent with: the turn answering it runs under it (turn-authority.ts). */
      tokenId?: string | null;
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
      // Before the message: a turn that picks it up is judged under its sender's credential, and
      // one running already (here or on another instance) is told to follow the new token.
      if ((await store.sessions.setTurnToken(session.id, input.tokenId ?? null)) && input.tokenId)
        o.authority?.rebound(session.id);
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
      if (await turns.busy(session)) return event;
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
      void turns.start(session.id, input.user.id, { known: { session, events } });
      return event;
    },

    /** `/compact`: summarises the whole conversation now, between turns (compaction.ts). */
    async compact(input: { sessionId: string }) {
      const session = await mustFind(input.sessionId);
      const busy = turns.isRunning(session.id) || session.status === "waiting_approval";
      return compactBetweenTurns({ store, log, models: o.models, sessionId: session.id, modelId: session.model, busy });
    },

    async cancel(input: { sessionId: string; user: Person }) {
      const session = await mustFind(input.sessionId);
      const running = turns.running(session.id);
      for (const child of await store.sessions.listChildren(session.id)) {
        turns.running(child.id)?.controller.abort();
      }
      if (running) {
        running.controller.abort();
        await running.done;
        return;
      }
      if (await turns.requestCancel(session.id)) return; // the instance running it stops at its next heartbeat
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
      await setup.setStatus(session.id, "idle");
    },

    /** Continues an interrupted or failed session from its log. */
    async resume(input: { sessionId: string; user: Person; tokenId?: string | null }) {
      const session = await mustFind(input.sessionId);
      if (await turns.busy(session)) return { status: session.status };
      // The turn goes on under the credential of whoever resumed it (turn-authority.ts).
      await store.sessions.setTurnToken(session.id, input.tokenId ?? null);
      void turns.start(session.id, await turnUser(session.id, input.user.id), { resumed: true });
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
        void turns.start(approval.sessionId, await turnUser(approval.sessionId, input.user.id));
      }
      return { sessionId: approval.sessionId, status };
    },

    stream(sessionId: string, afterSeq: number, signal?: AbortSignal) {
      return streamSessionEvents({ store, bus: o.bus, log, sessionId, afterSeq, signal });
    },

    /** Runs one tool for a person, outside the model loop (the settings page's workflow Run), as a turn of its own. */
    async runToolFor(input: {
      sessionId: string;
      toolName: string;
      input: unknown;
      user: Person;
      /** The API token the run was asked for with: it runs under it (turn-authority.ts). */
      tokenId?: string | null;
    }) {
      const session = await mustFind(input.sessionId);
      if (await turns.busy(session)) {
        throw new AgentRuntimeError(
          "CONFLICT",
          "The agent is busy in this session; wait for it to finish, or use a new session.",
        );
      }
      await store.sessions.setTurnToken(session.id, input.tokenId ?? null);
      return turns.runAlone(
        session.id,
        input.user.id,
        {
          what: `direct ${input.toolName} run in session ${session.id}`,
          message: `${input.toolName} stopped on an internal error.`,
        },
        (signal) =>
          runToolDirectly(setup, {
            sessionId: session.id,
            userId: input.user.id,
            toolName: input.toolName,
            input: input.input,
            signal,
          }),
      );
    },

    async deleteSession(sessionId: string) {
      await turns.release(sessionId);
      await store.sessions.delete(sessionId);
    },

    /** Stops every turn of a project and frees its sessions' shells, before the project is deleted. */
    async stopProject(projectId: string) {
      for (const id of await store.sessions.listIdsOfProject(projectId)) await turns.release(id);
    },
  };
}
