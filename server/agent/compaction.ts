import { generateText, type LanguageModel, type ModelMessage } from "ai";
import { foldModelMessages, type ModelFoldOptions } from "@/lib/model-transcript";
import type { SessionEvent } from "@/lib/session-events";
import type { AgentStore } from "@/server/agent/agent-store";
import type { EventLog } from "@/server/agent/events";
import { AgentRuntimeError } from "@/server/agent/runtime-error";
import { describeModelError, safeEndpoint } from "@/server/agent/errors";
import { loadModelFacts } from "@/server/agent/usage";
import type { ModelRegistry } from "@/server/agent/providers";
import { MAX_RETRIES } from "@/server/agent/step";
import { pushContiguous } from "@/server/agent/turn-state";
import { latestRequest, latestTodos, summaryRequest } from "@/server/agent/compaction-request";

// Keeps what is sent to the model inside its context window. When the estimate (the instructions,
// the messages and the tools' real schemas) passes COMPACT_AT of the window: turns before the
// current one are summarised by the model into a `compaction` event (the fold then sends the
// summary instead of them), then tool outputs older than the last KEEP_STEPS steps are pruned from
// what is sent, and if a long turn alone is still too much, its steps before the last KEEP_STEPS
// are summarised as well. The log keeps everything. Any cut is reported (`cut`), so whatever
// remembers what the model was already shown can forget it.

export const COMPACT_AT = 0.8;
const KEEP_STEPS = 3;
/** Token count of what would be sent at ~4 characters a token: instructions, messages, the tools' schemas. */
export function estimateTokens(instructions: string, messages: ModelMessage[], toolsChars = 0): number {
  return Math.ceil((instructions.length + JSON.stringify(messages).length + toolsChars) / 4);
}

/** The seq before which tool outputs are pruned: the start of the last KEEP_STEPS steps. */
export function pruneBoundary(events: SessionEvent[]): number | undefined {
  const stepStarts: number[] = [];
  const seen = new Set<string>();
  for (const e of events) {
    if ((e.type === "tool_call" || e.type === "assistant_message") && !seen.has(e.payload.stepId)) {
      seen.add(e.payload.stepId);
      stepStarts.push(e.seq);
    }
  }
  return stepStarts.length > KEEP_STEPS ? stepStarts[stepStarts.length - KEEP_STEPS] : undefined;
}

/** Summarises the events up to `upToSeq` into a `compaction` event (also what /compact asks for). */
export async function compactUpTo(input: {
  events: SessionEvent[];
  upToSeq: number;
  estimatedTokens: number;
  contextWindow: number;
  model: LanguageModel;
  log: EventLog;
  sessionId: string;
  signal: AbortSignal;
  /** The session's background jobs still running, one line each, for the summary. */
  jobs?: string[];
}) {
  const older = input.events.filter((e) => e.seq <= input.upToSeq);
  const { text } = await generateText({
    model: input.model,
    instructions: "You write compact, faithful, structured summaries of coding sessions.",
    messages: summaryRequest(foldModelMessages(older), { todos: latestTodos(older), jobs: input.jobs ?? [] }),
    abortSignal: input.signal,
    maxRetries: MAX_RETRIES,
  });
  return input.log.append(input.sessionId, "compaction", {
    summary: withLatestRequest(text.trim(), latestRequest(older, input.upToSeq)),
    upToSeq: input.upToSeq,
    estimatedTokens: input.estimatedTokens,
    contextWindow: input.contextWindow,
  });
}

/**
 * `/compact`: summarises the whole conversation now, between turns; what the model reads next
 * starts from the summary. `busy`: a turn runs or waits for an approval. The session's model is
 * resolved only once there is something to compact.
 */
export async function compactBetweenTurns(input: {
  store: AgentStore;
  log: EventLog;
  models: Pick<ModelRegistry, "resolve" | "endpoint" | "contextWindow">;
  sessionId: string;
  modelId: string;
  busy: boolean;
}) {
  if (input.busy) throw new AgentRuntimeError("CONFLICT", "The agent is working; compact once its turn has ended.");
  const events = await input.store.events.list(input.sessionId);
  const last = events.at(-1)?.seq ?? 0;
  const previous = events.findLast((e) => e.type === "compaction");
  if (previous?.type === "compaction" && previous.payload.upToSeq >= last - 1)
    throw new AgentRuntimeError("PRECONDITION_FAILED", "Nothing new to compact since the last summary.");
  if (!events.some((e) => e.type === "user_message"))
    throw new AgentRuntimeError("PRECONDITION_FAILED", "There is no conversation to compact yet.");
  const facts = await loadModelFacts(input.store, input.modelId, input.models);
  try {
    const event = await compactUpTo({
      events,
      upToSeq: last,
      estimatedTokens: estimateTokens("", foldModelMessages(events)),
      contextWindow: facts.contextWindow,
      model: input.models.resolve(input.modelId),
      log: input.log,
      sessionId: input.sessionId,
      signal: AbortSignal.timeout(120_000),
    });
    return { seq: event.seq };
  } catch (error) {
    // A model that fails or is not set up is said as a failed turn says it (errors.ts): the
    // provider's status and what to do, not the SDK's error text. Anything else stays as it is.
    const described = describeModelError(error, input.modelId, safeEndpoint(input.models, input.modelId));
    if (described.code === "internal") throw error;
    throw new AgentRuntimeError(
      described.code === "not_configured" ? "PRECONDITION_FAILED" : "BAD_GATEWAY",
      `Could not compact: ${described.message}`,
    );
  }
}

export type PreparedContext = { messages: ModelMessage[]; fold: ModelFoldOptions; estimate: number; cut: boolean };

/**
 * The messages for the next step, compacting first when they would not fit. `turnStartSeq` is
 * where the current turn began: only what is before it may be summarised.
 */
export async function prepareContext(input: {
  events: SessionEvent[];
  instructions: string;
  toolsChars: number;
  contextWindow: number;
  turnStartSeq: number;
  model: LanguageModel;
  log: EventLog;
  sessionId: string;
  signal: AbortSignal;
  /** The session's background jobs still running, one line each, for the summary. */
  jobs?: string[];
  /** Whether the model reads images (otherwise they become text notes). */
  acceptsImages?: boolean;
}): Promise<PreparedContext> {
  const limit = input.contextWindow * COMPACT_AT;
  let fold: ModelFoldOptions = { acceptsImages: input.acceptsImages ?? false };
  let messages = foldModelMessages(input.events, fold);
  let estimate = estimateTokens(input.instructions, messages, input.toolsChars);
  if (estimate <= limit) return { messages, fold, estimate, cut: false };

  const lastCompaction = input.events.findLast((e) => e.type === "compaction");
  const compactedUpTo = lastCompaction?.type === "compaction" ? lastCompaction.payload.upToSeq : 0;
  const upToSeq = input.turnStartSeq - 1;
  if (upToSeq > compactedUpTo) {
    const event = await compactUpTo({ ...input, upToSeq, estimatedTokens: estimate });
    pushContiguous(input.events, event);
    messages = foldModelMessages(input.events, fold);
    estimate = estimateTokens(input.instructions, messages, input.toolsChars);
  }
  const recentStart = pruneBoundary(input.events.filter((e) => e.seq >= input.turnStartSeq));
  if (estimate > limit) {
    fold = { ...fold, pruneBeforeSeq: recentStart };
    messages = foldModelMessages(input.events, fold);
    estimate = estimateTokens(input.instructions, messages, input.toolsChars);
  }
  // Still too long: the turn itself is. Its earlier steps are summarised too, up to the last
  // KEEP_STEPS steps, which are sent as they are (with the latest request kept word for word).
  const current = input.events.findLast((e) => e.type === "compaction");
  const summarisedUpTo = current?.type === "compaction" ? current.payload.upToSeq : 0;
  if (estimate > limit && recentStart !== undefined && recentStart - 1 > summarisedUpTo) {
    const event = await compactUpTo({ ...input, upToSeq: recentStart - 1, estimatedTokens: estimate });
    pushContiguous(input.events, event);
    messages = foldModelMessages(input.events, fold);
    estimate = estimateTokens(input.instructions, messages, input.toolsChars);
  }
  return { messages, fold, estimate, cut: true };
}

/** The latest request must survive word for word; a summary that paraphrased it gets it appended. */
function withLatestRequest(summary: string, request: string | null): string {
  if (!request || summary.includes(request)) return summary;
  return `${summary}\n\n## Latest request (word for word)\n${request}`;
}
