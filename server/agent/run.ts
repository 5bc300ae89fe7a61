import { randomUUID } from "node:crypto";
import type { SessionEvent } from "@/lib/session-events";
import { prepareContext } from "@/server/agent/compaction";
import { withImageBytes } from "@/server/agent/images";
import { describeModelError } from "@/server/agent/errors";
import { LoopGuard, loopGuardMessage } from "@/server/agent/loop-guard";
import { runModelStep, toolsChars, type StepCall } from "@/server/agent/step";
import { type CallRunner, closeCalls } from "@/server/agent/call-results";
import { runPendingCalls } from "@/server/agent/tool-calls";
import type { TurnContext } from "@/server/agent/turn-context";
import { turnCheckpointer } from "@/server/agent/turn-checkpoint";
import { TurnRevoked } from "@/server/agent/turn-authority";
import { pushContiguous, turnState, type ToolCallEvent, type TurnState } from "@/server/agent/turn-state";
import { addUsage, costOf } from "@/server/agent/usage";
import type { TokenUsage } from "@/lib/session-events";

// One turn of the agent: model step → tool calls → model step ... until the model answers
// without calling tools, the step limit or the loop guard stops it, it is cancelled, or it must
// wait for a person. Every decision is taken from the session's log (turn-state.ts), so the same
// function starts a turn, continues it after an approval, and resumes it after a restart.

/**
 * "waiting": for a person's answer; "handed_over": another instance holds the turn now (this one stopped without writing).
 * `finishedSeq`: the seq of the turn's `turn_finished`, when it wrote one.
 */
export type TurnEnd = {
  reason: "completed" | "cancelled" | "step_limit" | "loop_guard" | "error" | "budget" | "waiting" | "handed_over";
  text: string;
  finishedSeq?: number;
};

/** The abort reason when this instance lost the turn's lease: the instance that took it over writes from here on. */
export class TurnHandedOver extends Error {
  constructor() {
    super("another instance took this turn over");
  }
}

export async function runTurn(r: TurnContext): Promise<TurnEnd> {
  // A prefix of the log is enough here: only the holder of the turn's lease starts a turn, and the
  // loop reads what followed before it decides anything else.
  const events = [...r.events];
  let state = turnState(events);
  let turn = state.openTurn;
  if (!turn) {
    const turnId = randomUUID();
    const started = await r.log.append(r.sessionId, "turn_started", {
      turnId,
      model: r.modelId,
      resumed: r.resumed,
      ...(r.contextUsed ? { context: r.contextUsed } : {}),
    });
    pushContiguous(events, started);
    turn = { turnId, seq: started.seq };
  }
  const { turnId } = turn;
  await r.setStatus("running");
  let lastText = "";

  const refresh = async () => {
    events.push(...(await r.store.events.list(r.sessionId, events.at(-1)?.seq ?? 0)));
    return turnState(events);
  };
  /** `fresh`: the state just refreshed, when the caller has it (no second read of the log's tail). */
  const finish = async (
    reason: Exclude<TurnEnd["reason"], "waiting" | "handed_over">,
    message?: string,
    fresh?: TurnState,
  ): Promise<TurnEnd> => {
    const ended = fresh ?? (await refresh());
    const endCheckpointId = ended.checkpointed ? await snapshotAfter(r, turnId) : undefined;
    const finished = await r.log.append(r.sessionId, "turn_finished", {
      turnId,
      reason,
      message,
      steps: ended.steps,
      ...(endCheckpointId ? { endCheckpointId } : {}),
    });
    await r.setStatus(reason === "error" ? "failed" : "idle", message);
    return { reason, text: lastText, finishedSeq: finished.seq };
  };
  const runner: CallRunner = { turn: r, turnId, beforeChange: turnCheckpointer(r, turnId, state.checkpointed) };

  for (;;) {
    state = await refresh();
    if (r.signal.reason instanceof TurnHandedOver) return { reason: "handed_over", text: lastText };
    if (r.signal.aborted) {
      await closeCalls(r.log, r.sessionId, turnId, state.pendingCalls, "the turn was cancelled.");
      // Stopped as Stop stops it; when its authority ended (turn-authority.ts), its end says so.
      return finish("cancelled", r.signal.reason instanceof TurnRevoked ? r.signal.reason.message : undefined);
    }
    if (state.pendingCalls.length) {
      const loop = LoopGuard.fromLog(events, turnId, r.loopGuardRepeats);
      if ((await runPendingCalls({ ...runner, loop }, state.pendingCalls, state)) === "waiting") {
        await r.setStatus("waiting_approval");
        return { reason: "waiting", text: lastText };
      }
      if (loop.hit) return finish("loop_guard", loopGuardMessage(loop.hit));
      continue;
    }
    if (state.steps >= r.stepLimit) {
      return finish(
        "step_limit",
        `Stopped: this turn reached its limit of ${r.stepLimit} steps. Send a message to let the agent continue.`,
      );
    }

    // Asked here, with every call of the last step answered: a budget never stops a tool call midway.
    const admission = r.spending ? await r.spending.admitStep() : null;
    if (admission && !admission.ok) return finish("budget", admission.message);
    const seenSeq = state.lastSeq;
    const stepId = freshStepId(events, `${turnId}:${state.steps + 1}`);
    let step: Awaited<ReturnType<typeof runModelStep>>;
    let stepStarted = 0;
    try {
      const model = r.model();
      const shown = r.modelTools?.(events) ?? r.tools;
      const shownChars = toolsChars(shown, r.modelId);
      r.onFixedCost?.(r.instructions.length + shownChars);
      const context = await prepareContext({
        events,
        instructions: r.instructions,
        toolsChars: shownChars,
        contextWindow: r.facts.contextWindow,
        turnStartSeq: state.turnContextSeq || turn.seq,
        model,
        log: r.log,
        sessionId: r.sessionId,
        signal: r.signal,
        jobs: r.backgroundJobs?.(),
        acceptsImages: r.facts.acceptsImages,
      });
      if (context.cut) r.onContextCut?.();
      const lastStep = r.reportAtLimit === true && state.steps === r.stepLimit - 1;
      stepStarted = performance.now();
      step = await runModelStep({
        log: r.log,
        sessionId: r.sessionId,
        turnId,
        stepId,
        modelId: r.modelId,
        basedOnSeq: seenSeq,
        model,
        instructions: r.instructions,
        messages: [
          ...(await withImageBytes(context.messages, (hashes) => r.store.images.load(r.sessionId, hashes))),
          ...(lastStep ? [{ role: "user" as const, content: finalReportRequest(r.stepLimit) }] : []),
        ],
        tools: shown,
        callable: r.tools,
        ...(lastStep ? { toolChoice: "none" as const } : {}),
        signal: r.signal,
        maxRetries: r.maxRetries,
        usedCallIds: new Set(events.flatMap((e) => (e.type === "tool_call" ? [e.payload.toolCallId] : []))),
      });
    } catch (error) {
      if (r.signal.aborted) continue;
      step = {
        text: "",
        calls: [],
        usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, reasoningTokens: 0 },
        error,
        aborted: false,
      };
    }
    if (stepStarted)
      r.metrics?.modelStep({
        model: r.modelId,
        durationMs: Math.round(performance.now() - stepStarted),
        usage: step.usage,
        ok: !step.error && !step.aborted,
      });
    // What the step used is charged even when it failed or was stopped; its hold is let go either way.
    await admission?.settle(step.usage, costOf(step.usage, r.facts.prices));
    if (step.aborted) continue; // the top of the loop closes the step's calls and finishes
    if (step.error) {
      await refresh();
      await closeCalls(
        r.log,
        r.sessionId,
        turnId,
        callsOf(events, step.calls),
        "the model's answer was cut off before the call was complete.",
      );
      const described = describeModelError(step.error, r.modelId, r.endpoint);
      await r.log.append(r.sessionId, "error", { ...described, turnId });
      return finish("error", described.message);
    }
    lastText = step.text || lastText;
    await recordUsage(r, events, turnId, stepId, step.usage);
    if (!step.calls.length) {
      state = await refresh();
      if (state.lastUserSeq > seenSeq) continue; // someone wrote while the model answered
      return finish("completed", undefined, state);
    }
  }
}

/** Asked of a sub-agent at its last step (not logged): its report is all the delegating agent gets. */
function finalReportRequest(stepLimit: number): string {
  return `[Tandem] This is your last step (${stepLimit} of ${stepLimit}): no more tool calls. Write your final report now: what you found or changed (with paths), what you verified and how, and what is left undone.`;
}

/**
 * A turn that changed files is snapshotted again when it ends: what differs between its checkpoint
 * and this is what the turn changed, so the Changes view can leave out files only people changed
 * between turns. A failed snapshot only loses that precision.
 */
async function snapshotAfter(r: TurnContext, turnId: string): Promise<string | undefined> {
  try {
    return (await r.snapshot!(`After turn ${turnId}`)).id;
  } catch (error) {
    console.error(`snapshot after turn ${turnId} of session ${r.sessionId} failed:`, error);
    return undefined;
  }
}

/**
 * A step cut off mid-stream when its instance died left text under its id; the step that replaces
 * it (on the instance that took the turn over) gets an id of its own, so the two are not merged.
 */
function freshStepId(events: SessionEvent[], base: string): string {
  const used = new Set(
    events.map((e) => (e.payload as { stepId?: unknown }).stepId).filter((id) => typeof id === "string"),
  );
  if (!used.has(base)) return base;
  for (let n = 2; ; n++) if (!used.has(`${base}.${n}`)) return `${base}.${n}`;
}

function callsOf(events: SessionEvent[], calls: StepCall[]): ToolCallEvent[] {
  const ids = new Set(calls.map((c) => c.toolCallId));
  return events.filter((e): e is ToolCallEvent => e.type === "tool_call" && ids.has(e.payload.toolCallId));
}

async function recordUsage(r: TurnContext, events: SessionEvent[], turnId: string, stepId: string, step: TokenUsage) {
  const previous = events.findLast((e) => e.type === "usage");
  const before = previous?.type === "usage" ? previous.payload : null;
  const session = addUsage(
    before?.session ?? { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, reasoningTokens: 0 },
    step,
  );
  const stepCostUsd = costOf(step, r.facts.prices);
  const sessionCostUsd = (before?.sessionCostUsd ?? 0) + (stepCostUsd ?? 0);
  const event = await r.log.append(r.sessionId, "usage", {
    turnId,
    stepId,
    step,
    session,
    stepCostUsd,
    sessionCostUsd,
  });
  pushContiguous(events, event);
  await r.store.sessions.addUsage(r.sessionId, {
    inputTokens: step.inputTokens,
    outputTokens: step.outputTokens,
    costUsd: stepCostUsd ?? 0,
  });
}
