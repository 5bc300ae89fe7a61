import { MAX_IMAGE_BYTES, type ImageRef } from "@/lib/images";
import type { EventLog } from "@/server/agent/events";
import type { LoopGuard } from "@/server/agent/loop-guard";
import type { TurnContext } from "@/server/agent/turn-context";
import type { ToolCallEvent, TurnState } from "@/server/agent/turn-state";
import type { LlmContent } from "@/server/tools/define-tool";

// How a tool call's result enters the session's log: its text (with the loop guard's warning),
// its images stored by reference, and the closing result of a call that will never run, or that
// a crash cut off (tool-calls.ts runs the calls).

/** The turn the calls belong to, its id in the log, and what runs before its first change. */
export type CallRunner = {
  turn: TurnContext;
  turnId: string;
  /** Called before a tool that may change files runs (takes the turn's checkpoint once). */
  beforeChange?(): Promise<void>;
  /** Counts each result for the loop guard, which may add a warning to it. */
  loop?: LoopGuard;
};

/** A result's image parts, stored by reference; an image over the size cap becomes a note the model reads. */
export async function storeResultImages(
  runner: CallRunner,
  llm: LlmContent,
): Promise<{ refs: ImageRef[]; notes: string[] }> {
  const refs: ImageRef[] = [];
  const notes: string[] = [];
  if (typeof llm === "string") return { refs, notes };
  for (const part of llm) {
    if (part.type !== "image") continue;
    const bytes = Buffer.from(part.data, "base64");
    if (bytes.length > MAX_IMAGE_BYTES)
      notes.push(
        `[An image of ${Math.round(bytes.length / 1024)} KB was left out: images over ${MAX_IMAGE_BYTES / 1024 / 1024} MB are not sent to the model.]`,
      );
    else refs.push(await runner.turn.store.images.store(runner.turn.sessionId, bytes, part.mediaType));
  }
  return { refs, notes };
}

export async function recordResult(
  runner: CallRunner,
  call: ToolCallEvent,
  ok: boolean,
  llm: string,
  errorCode: string | undefined,
  durationMs: number,
  display?: unknown,
  images?: { refs: ImageRef[]; notes: string[] },
  json?: boolean,
) {
  const text = images?.notes.length ? [llm, ...images.notes].join("\n") : llm;
  const warning = runner.loop?.observe(call.payload.toolName, call.payload.input, ok, text);
  await runner.turn.log.append(runner.turn.sessionId, "tool_result", {
    turnId: runner.turnId,
    toolCallId: call.payload.toolCallId,
    toolName: call.payload.toolName,
    ok,
    llm: warning ? text + warning : text,
    display,
    durationMs,
    errorCode,
    ...(images?.refs.length ? { images: images.refs } : {}),
    ...(json && !warning ? { json: true as const } : {}),
  });
}

export function interruptedNote(toolName: string, captured: { path: string; text: string } | null): string {
  const output = captured
    ? ` Output captured before it stopped (full log: ${captured.path}):\n${captured.text || "(none)"}\n`
    : "";
  return `This ${toolName} call was interrupted mid-run: the server stopped while it ran, so it may have partly run.${output}`;
}

/**
 * Closes calls that will never run (a failed step, a new message after an interruption). A call in
 * `started` did begin before a crash: the model is told it may have partly run, not "Not run".
 */
export async function closeCalls(
  log: EventLog,
  sessionId: string,
  turnId: string,
  calls: ToolCallEvent[],
  why: string,
  started?: TurnState["startedCalls"],
) {
  for (const call of calls) {
    const cut = started?.has(call.payload.toolCallId);
    await log.append(sessionId, "tool_result", {
      turnId,
      toolCallId: call.payload.toolCallId,
      toolName: call.payload.toolName,
      ok: false,
      llm: cut ? `${interruptedNote(call.payload.toolName, null)} It was not run again.` : `Not run: ${why}`,
      durationMs: 0,
      errorCode: "ABORTED",
    });
  }
}
