import type { CallGrant, CallPlan, Tool, ToolContext, ToolQuestion } from "@/server/tools/define-tool";
import { effectOf } from "@/server/tools/define-tool";
import { failure, textOf } from "@/server/tools/result";
import { callPlan, callQuestion, runTool, toolForcesApproval } from "@/server/tools/registry";
import type { Approval } from "@/server/agent/agent-store";
import { decide, type Policy } from "@/server/agent/policy";
import { callHash } from "@/server/agent/call-binding";
import { guardReasons } from "@/server/agent/command-guard";
import { gitWorkProbe } from "@/server/agent/git-work-probe";
import type { ToolCallEvent, TurnState } from "@/server/agent/turn-state";
import { type CallRunner, interruptedNote, recordResult, storeResultImages } from "@/server/agent/call-results";

// Runs the tool calls of a step that have no result yet, in the model's order, as the registry
// allows: consecutive read-only calls together, anything that changes state one at a time. Each
// call first passes the approval policy. A call that needs a person (approval, or ask_user)
// records a durable request and the turn stops here with "waiting"; answering it re-enters the
// loop, which finds the call's request in the log (turn-state.ts) and its answer in the approvals
// table, and carries on from the same call. An answer counts only for the call it was asked for
// (call-binding.ts): the same turn, the same request and the same tool, input and plan.

export type CallsOutcome = "done" | "waiting";

type Ready = { call: ToolCallEvent; tool: Tool; grant: CallGrant };

/** `state`: the calls cut off mid-run by a crash, and the requests made for pending calls (TurnState). */
export async function runPendingCalls(
  runner: CallRunner,
  calls: ToolCallEvent[],
  state: Pick<TurnState, "startedCalls" | "requests"> = { startedCalls: new Map(), requests: new Map() },
): Promise<CallsOutcome> {
  let batch: Ready[] = [];
  const flushBatch = async () => {
    const current = batch;
    batch = [];
    const results = await Promise.all(current.map((r) => execute(runner, r)));
    for (const append of results) await append();
  };

  for (const call of calls) {
    if (runner.turn.signal.aborted) break;
    const next = await prepare(
      runner,
      call,
      state.startedCalls.get(call.payload.toolCallId),
      state.requests.get(call.payload.toolCallId),
    );
    if (next.kind === "result") {
      await flushBatch();
      await recordResult(runner, call, next.ok, next.llm, next.errorCode, 0);
      continue;
    }
    if (next.kind === "waiting") {
      await flushBatch();
      return "waiting";
    }
    if (effectOf(next.tool, call.payload.input) === "none") {
      batch.push({ call, tool: next.tool, grant: next.grant });
      continue;
    }
    await flushBatch();
    await (await execute(runner, { call, tool: next.tool, grant: next.grant }, next.note))();
  }
  await flushBatch();
  return "done";
}

type Prepared =
  | { kind: "run"; tool: Tool; grant: CallGrant; note?: string }
  | { kind: "waiting" }
  | { kind: "result"; ok: boolean; llm: string; errorCode?: string };

/** What the call is, for its request and its approval: the tool, its input and what it will run. */
type Bound = { plan: CallPlan | null; hash: string };

async function prepare(
  runner: CallRunner,
  call: ToolCallEvent,
  cut?: { asked: boolean },
  asked?: { seq: number; approvalId: string },
): Promise<Prepared> {
  const { toolName, input, toolCallId } = call.payload;
  const tool = runner.turn.tools[toolName];
  if (!tool) {
    const names = Object.keys(runner.turn.tools).join(", ");
    const f = failure(
      "TOOL_NOT_FOUND",
      `There is no tool named "${toolName}". Available tools: ${names}. Call one of those instead.`,
    );
    return { kind: "result", ok: false, llm: textOf(f.llm), errorCode: "TOOL_NOT_FOUND" };
  }
  if (typeof input === "string") {
    const f = failure(
      "INVALID_INPUT",
      `The arguments for ${toolName} were not valid JSON. Send them as one JSON object matching the tool's schema.`,
    );
    return { kind: "result", ok: false, llm: textOf(f.llm), errorCode: "INVALID_INPUT" };
  }

  const plan = await callPlan(tool, input, runner.turn.toolContext(toolCallId));
  const bound: Bound = { plan, hash: callHash(tool.name, input, plan) };
  const approval = asked ? await boundApproval(runner, call, asked, bound) : null;
  if (cut) return afterCrash(runner, call, tool, cut, bound, approval);
  if (approval) return fromApproval(approval, tool, plan);

  const question = callQuestion(tool, input);
  if (question) {
    await request(runner, call, tool, bound, "question", undefined, question);
    return { kind: "waiting" };
  }
  const insists =
    tool.approval === "always" ? "always" : await toolForcesApproval(tool, input, runner.turn.toolContext(toolCallId));
  const guarded = plan !== null && (tool.kind === "execute" || tool.plan !== undefined) && runner.turn.policy.guard;
  const guard = guarded ? await guardAll(plan.commands, runner.turn.policy, runner.turn.toolContext(toolCallId)) : [];
  const decision = decide(runner.turn.policy, tool, input, insists, guard, plan);
  if (decision.action === "run") return { kind: "run", tool, grant: { plan, approvedById: null } };
  if (decision.action === "deny") {
    return {
      kind: "result",
      ok: false,
      llm: `Error [DENIED]: ${decision.reason} Do not retry this call; find another way or ask the user.`,
      errorCode: "DENIED",
    };
  }
  await request(runner, call, tool, bound, "tool", decision.reason);
  return { kind: "waiting" };
}

/** The guard's reasons over every command the call runs. */
async function guardAll(commands: readonly string[], policy: Policy, ctx: ToolContext): Promise<string[]> {
  const reasons = new Set<string>();
  for (const command of commands)
    for (const reason of await guardReasons(command, policy.guard!, gitWorkProbe(ctx))) reasons.add(reason);
  return [...reasons];
}

/**
 * The approval that answers the call's last request, when it was made for exactly this call: this
 * session, this turn, that request's place in the log and the same tool, input and plan. A request
 * whose approval row was not yet bound to its event (the server stopped between the two) is bound
 * now; anything else (an approval made for another call) is no approval, and the call asks anew.
 */
async function boundApproval(
  runner: CallRunner,
  call: ToolCallEvent,
  asked: { seq: number; approvalId: string },
  bound: Bound,
): Promise<Approval | null> {
  const approval = await runner.turn.store.approvals.find(asked.approvalId);
  if (!approval || approval.sessionId !== runner.turn.sessionId || approval.toolCallId !== call.payload.toolCallId)
    return null;
  if (approval.turnId !== call.payload.turnId || approval.callHash !== bound.hash) return null;
  if (approval.requestSeq === null) {
    await runner.turn.store.approvals.bindRequest(approval.id, asked.seq);
    return { ...approval, requestSeq: asked.seq };
  }
  return approval.requestSeq === asked.seq ? approval : null;
}

/**
 * A call cut off mid-run by a crash is never run again silently (whatever the approval mode, and
 * whatever was approved before it started): a command asks a person again, with what it printed so
 * far; any other change is reported to the model as interrupted, for it to check and decide.
 */
async function afterCrash(
  runner: CallRunner,
  call: ToolCallEvent,
  tool: Tool,
  cut: { asked: boolean },
  bound: Bound,
  approval: Approval | null,
): Promise<Prepared> {
  const { toolCallId } = call.payload;
  const captured = await runner.turn
    .toolContext(toolCallId)
    .shell.capturedOutput(toolCallId)
    .catch(() => null);
  const interrupted = interruptedNote(tool.name, captured);
  if (tool.kind !== "execute") {
    return {
      kind: "result",
      ok: false,
      llm: `${interrupted} It was not run again: check its effect before calling it again.`,
      errorCode: "INTERRUPTED",
    };
  }
  if (!cut.asked || !approval) {
    await request(runner, call, tool, bound, "tool", `${interrupted} Run it again?`);
    return { kind: "waiting" };
  }
  if (approval.status === "pending") return { kind: "waiting" };
  if (approval.status === "rejected") {
    const feedback = approval.feedback?.trim();
    return {
      kind: "result",
      ok: false,
      llm: `${interrupted} The user chose not to run it again.${feedback ? ` Their feedback: ${feedback}` : ""}`,
      errorCode: "INTERRUPTED",
    };
  }
  return {
    kind: "run",
    tool,
    grant: { plan: bound.plan, approvedById: approval.resolvedById },
    note: `${interrupted} The user approved running it again; this is the second run's result.`,
  };
}

function fromApproval(approval: Approval, tool: Tool, plan: CallPlan | null): Prepared {
  if (approval.status === "pending") return { kind: "waiting" };
  if (approval.status === "rejected") {
    const feedback = approval.feedback?.trim();
    const llm =
      approval.kind === "question"
        ? `The user declined to answer.${feedback ? ` They said: ${feedback}` : ""}`
        : `The user rejected this ${tool.name} call, so it did not run.${feedback ? ` Their feedback: ${feedback}` : " Ask them how to proceed if it is not clear."}`;
    return { kind: "result", ok: false, llm, errorCode: "REJECTED" };
  }
  return { kind: "run", tool, grant: { plan, approvedById: approval.resolvedById } };
}

/**
 * Records a request: the approval row first (bound to the turn and the call's hash), then its
 * event, then the event's seq on the row. The log decides: the fold finds the request by its event,
 * and a row whose event was never written is never shown nor counted as waiting.
 */
async function request(
  runner: CallRunner,
  call: ToolCallEvent,
  tool: Tool,
  bound: Bound,
  kind: "tool" | "question",
  reason?: string,
  question?: ToolQuestion,
) {
  const approval = await runner.turn.store.approvals.create({
    sessionId: runner.turn.sessionId,
    toolCallId: call.payload.toolCallId,
    toolName: tool.name,
    kind,
    input: call.payload.input,
    turnId: call.payload.turnId,
    callHash: bound.hash,
    plan: bound.plan,
  });
  const event = await runner.turn.log.append(runner.turn.sessionId, "approval_requested", {
    approvalId: approval.id,
    toolCallId: call.payload.toolCallId,
    toolName: tool.name,
    kind,
    title: call.payload.title,
    input: call.payload.input,
    reason,
    ...(bound.plan && tool.plan ? { commands: bound.plan.commands } : {}),
    ...question,
  });
  await runner.turn.store.approvals.bindRequest(approval.id, event.seq);
}

/** Runs a call; returns the function that records its result, so batches record in call order. */
async function execute(runner: CallRunner, { call, tool, grant }: Ready, note?: string): Promise<() => Promise<void>> {
  const effect = effectOf(tool, call.payload.input);
  if (effect === "workspace") await runner.beforeChange?.();
  // Durable before anything changes: a crash from here on leaves a call known to have started.
  if (effect !== "none") {
    await runner.turn.log.append(runner.turn.sessionId, "tool_started", {
      turnId: runner.turnId,
      toolCallId: call.payload.toolCallId,
      toolName: tool.name,
    });
  }
  const hooked = {
    turnId: runner.turnId,
    toolCallId: call.payload.toolCallId,
    toolName: tool.name,
    input: call.payload.input,
    changesWorkspace: effect === "workspace",
  };
  const blocked = (await runner.turn.hooks?.before(hooked))?.blocked;
  if (blocked) {
    const reason = `A project hook blocked this ${tool.name} call: ${blocked}`;
    return () => recordResult(runner, call, false, `Error [BLOCKED_BY_HOOK]: ${reason}`, "BLOCKED_BY_HOOK", 0);
  }
  const written = new Set<string>();
  const ctx = runner.turn.toolContext(call.payload.toolCallId, grant);
  const run = await runTool(tool, call.payload.input, { ...ctx, wrote: (path) => written.add(path) });
  runner.turn.metrics?.toolCall({ ...run.metrics, model: runner.turn.modelId });
  let llm = note ? `${note}\n\n${textOf(run.llm)}` : textOf(run.llm);
  const feedback = await runner.turn.hooks?.after(hooked, { ok: !run.error, llm }, [...written]);
  if (feedback) llm += `\n\n${feedback}`;
  const instructions = run.error
    ? null
    : await runner.turn.folderInstructions?.(tool, call.payload.input).catch(() => null);
  if (instructions) llm += `\n\n${instructions}`;
  const images = await storeResultImages(runner, run.llm);
  return async () => {
    await recordResult(
      runner,
      call,
      !run.error,
      llm,
      run.error?.code,
      run.metrics.durationMs,
      run.display,
      images,
      run.json && llm === textOf(run.llm),
    );
    const denied = run.meta?.deniedHosts;
    if (Array.isArray(denied) && denied.length > 0) {
      await runner.turn.log.append(runner.turn.sessionId, "network_denied", {
        turnId: runner.turnId,
        toolCallId: call.payload.toolCallId,
        hosts: denied.map(String),
      });
    }
  };
}
