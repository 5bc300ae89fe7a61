import { randomUUID } from "node:crypto";
import { callPlan, describeCall, runTool } from "@/server/tools/registry";
import { textOf } from "@/server/tools/result";
import type { TurnEnd } from "@/server/agent/run";
import { prepareTurn, type TurnSetup } from "@/server/agent/turn-setup";
import { TurnRevoked } from "@/server/agent/turn-authority";

// A tool run that a person starts (the settings page's workflow Run button), outside the model
// loop: a turn of its own in the session's log, with the call, its live progress and its result,
// exactly as if the agent had made the call, so every viewer sees it and the model reads it later.
// The person's click is the approval.

export async function runToolDirectly(
  setup: TurnSetup,
  input: { sessionId: string; userId: string; toolName: string; input: unknown; signal: AbortSignal },
): Promise<TurnEnd> {
  const turn = await prepareTurn(setup, {
    sessionId: input.sessionId,
    userId: input.userId,
    resumed: false,
    signal: input.signal,
  });
  const tool = turn.tools[input.toolName];
  if (!tool) throw new Error(`no tool named ${input.toolName} in this session`);
  const { log, sessionId } = turn;
  const turnId = randomUUID();
  const toolCallId = `direct-${randomUUID()}`;
  await turn.setStatus("running");
  await log.append(sessionId, "turn_started", { turnId, model: turn.modelId, resumed: false });
  const basedOnSeq = (await turn.store.events.list(sessionId)).at(-1)?.seq;
  await log.append(sessionId, "tool_call", {
    turnId,
    stepId: `${turnId}:0`,
    toolCallId,
    toolName: tool.name,
    input: input.input,
    basedOnSeq,
    title: describeCall(tool, input.input),
    kind: tool.kind,
  });
  // What the person started is what was vetted: its plan, approved by them.
  const grant = { plan: await callPlan(tool, input.input, turn.toolContext(toolCallId)), approvedById: input.userId };
  const run = await runTool(tool, input.input, turn.toolContext(toolCallId, grant));
  await log.append(sessionId, "tool_result", {
    turnId,
    toolCallId,
    toolName: tool.name,
    ok: !run.error,
    llm: textOf(run.llm),
    display: run.display,
    durationMs: run.metrics.durationMs,
    errorCode: run.error?.code,
  });
  const reason = input.signal.aborted ? "cancelled" : "completed";
  const why = input.signal.reason instanceof TurnRevoked ? input.signal.reason.message : undefined;
  await log.append(sessionId, "turn_finished", { turnId, reason, steps: 0, ...(why ? { message: why } : {}) });
  await turn.setStatus("idle");
  return { reason, text: textOf(run.llm) };
}
