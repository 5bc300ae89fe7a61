import {
  APICallError,
  experimental_streamLanguageModelCall as streamLanguageModelCall,
  jsonSchema,
  tool as sdkTool,
  type LanguageModel,
  type ModelMessage,
  type ToolSet as SdkToolSet,
} from "ai";
import type { ToolSet } from "@/server/tools/registry";
import { describeCall } from "@/server/tools/registry";
import { PROVIDERS, providerSpec, type ProviderId, type SchemaDialect } from "@/lib/model-providers";
import { inputJsonSchema } from "@/server/tools/schema";
import { withCacheMarks } from "@/server/agent/prompt-cache";
import type { EventLog } from "@/server/agent/events";
import { toTokenUsage } from "@/server/agent/usage";
import type { TokenUsage } from "@/lib/session-events";
import { ownCallId } from "@/server/agent/call-binding";

// One model step: a single call of the model (no tools executed by the SDK), its stream turned into
// session events. Tool calls are recorded here and run by tool-calls.ts, from the log, so that a
// turn can wait for people and survive a restart between any two steps.
//
// The SDK's one-call primitive is used, not streamText: it converts the prompt and tools, calls
// the provider and parses tool calls the same way, with one transform between the provider's
// stream and us. streamText adds about nine more web-stream stages per token (its multi-step loop,
// tool execution, retries, steering, telemetry) that a single step without tools to run does not
// use; with many sessions streaming they were a large part of the server's time (bench:stream).

export const MAX_RETRIES = 3;

// A tool's schema is converted once per dialect and description, not on every step of every turn.
// The cache is keyed by the schema object, not the tool: the tools a turn adds (catalog, skill,
// workflow, the server's services) are made anew each turn around module-level schemas, so a new
// tool with the same schema and description reuses the conversion, and a changed description
// (tool_search's, which lists the deferred tools) makes a new one. A module-level schema lives as
// long as the process, so the descriptions kept for one are capped: the oldest goes first.
const sdkTools = new WeakMap<object, Map<string, SdkToolSet[string]>>();
const DESCRIPTIONS_PER_SCHEMA = 32;
/** The characters of each converted tool's description and JSON schema, as the request carries them. */
const schemaChars = new WeakMap<object, number>();

/** The registry's tools as the model sees them: schema (in the provider's dialect) and description, no execute. */
export function toSdkTools(tools: ToolSet, dialect: SchemaDialect): SdkToolSet {
  const out: SdkToolSet = {};
  for (const [name, tool] of Object.entries(tools)) {
    const source: object = tool.inputSchema ?? tool.input;
    let converted = sdkTools.get(source);
    if (!converted) sdkTools.set(source, (converted = new Map()));
    const key = `${dialect}\n${tool.description}`;
    let sdk = converted.get(key);
    if (!sdk) {
      // No validation here: the registry validates (parseToolInput) and the model gets its message.
      const schema = inputJsonSchema(tool, dialect) as Parameters<typeof jsonSchema>[0];
      if (converted.size >= DESCRIPTIONS_PER_SCHEMA) converted.delete(converted.keys().next().value!);
      converted.set(key, (sdk = sdkTool({ description: tool.description, inputSchema: jsonSchema(schema) })));
      schemaChars.set(sdk, JSON.stringify({ description: tool.description, parameters: schema }).length);
    }
    out[name] = sdk;
  }
  return out;
}

/** What a provider wraps each tool in ({"type":"function","function":{"name":…}}). */
const TOOL_WRAPPER_CHARS = 40;

/** The size of the tools as sent to the model: their real schemas in the provider's dialect. */
export function toolsChars(tools: ToolSet, modelId: string): number {
  let chars = 0;
  for (const [name, sdk] of Object.entries(toSdkTools(tools, dialectOf(modelId))))
    chars += (schemaChars.get(sdk) ?? 0) + name.length + TOOL_WRAPPER_CHARS;
  return chars;
}

export function dialectOf(modelId: string): SchemaDialect {
  const provider = modelId.slice(0, modelId.indexOf(":"));
  return (PROVIDERS as string[]).includes(provider)
    ? providerSpec(provider as ProviderId).dialect
    : "openai-compatible";
}

export type StepCall = { toolCallId: string; toolName: string; input: unknown; invalidJson: boolean };

export type StepOutcome = {
  text: string;
  calls: StepCall[];
  usage: TokenUsage;
  error: unknown;
  aborted: boolean;
};

type StepInput = {
  log: EventLog;
  sessionId: string;
  turnId: string;
  stepId: string;
  modelId: string;
  /** The last seq the model's request was built from. */
  basedOnSeq: number;
  model: LanguageModel;
  instructions: string;
  messages: ModelMessage[];
  tools: ToolSet;
  /** Every tool a call may name, shown or deferred (a call by name of a deferred tool runs): its title and kind come from here. */
  callable?: ToolSet;
  /** "none": the tools are sent (the history refers to them) but the model may not call one. */
  toolChoice?: "none";
  signal: AbortSignal;
  maxRetries?: number;
  /** The call ids the session's log already holds; the step adds the ones it gives (call-binding.ts). */
  usedCallIds: Set<string>;
};

/**
 * One model step, retried while the provider cannot be reached or asks to wait (429, 5xx) and
 * nothing has streamed yet. Each wait is a `model_retry` event, so the session shows the attempt
 * and the pause instead of a silent "Working".
 */
export async function runModelStep(input: StepInput): Promise<StepOutcome> {
  const { log, sessionId, turnId, stepId, signal } = input;
  const retries = input.maxRetries ?? MAX_RETRIES;
  let { outcome, reasoning } = await streamOnce(input);
  for (let attempt = 1; attempt <= retries; attempt++) {
    const silent = !outcome.text && outcome.calls.length === 0 && !reasoning;
    if (!outcome.error || outcome.aborted || !silent || !isRetryable(outcome.error)) break;
    const delayMs = retryDelay(outcome.error, attempt);
    const message = outcome.error instanceof Error ? outcome.error.message : String(outcome.error);
    await log.append(sessionId, "model_retry", {
      turnId,
      stepId,
      attempt: attempt + 1,
      attempts: retries + 1,
      delayMs,
      message: message.slice(0, 300),
    });
    await pause(delayMs, signal);
    if (signal.aborted) return { ...outcome, aborted: true };
    ({ outcome, reasoning } = await streamOnce(input));
  }
  if (reasoning) await log.append(sessionId, "reasoning", { turnId, stepId, text: reasoning });
  if (!outcome.error && !outcome.aborted)
    await log.append(sessionId, "assistant_message", {
      turnId,
      stepId,
      text: outcome.text,
      basedOnSeq: input.basedOnSeq,
    });
  else await log.flush(sessionId);
  return outcome;
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

async function streamOnce(input: StepInput): Promise<{ outcome: StepOutcome; reasoning: string }> {
  const { log, sessionId, turnId, stepId, tools, signal } = input;
  const outcome: StepOutcome = { text: "", calls: [], usage: toTokenUsage(undefined), error: null, aborted: false };
  let reasoning = "";
  try {
    const request = withCacheMarks(input.modelId, {
      instructions: input.instructions,
      messages: input.messages,
      tools: toSdkTools(tools, dialectOf(input.modelId)),
    });
    const result = await streamLanguageModelCall({
      model: input.model,
      ...request,
      ...(input.toolChoice ? { toolChoice: input.toolChoice } : {}),
      abortSignal: signal,
    });
    for await (const part of result.stream) {
      switch (part.type) {
        case "text-delta":
          if (!part.text) break;
          outcome.text += part.text;
          log.delta(sessionId, { turnId, stepId, text: part.text });
          break;
        case "reasoning-delta":
          reasoning += part.text;
          break;
        case "tool-call": {
          const invalidJson = !!part.invalid && typeof part.input === "string" && !isJson(part.input);
          // A tool the model was not shown this step (a deferred one it named anyway) arrives as a JSON string.
          const args: unknown = invalidJson
            ? part.input
            : typeof part.input === "string"
              ? JSON.parse(part.input)
              : (part.input ?? {});
          const call: StepCall = {
            toolCallId: ownCallId(part.toolCallId, input.usedCallIds),
            toolName: part.toolName,
            input: args,
            invalidJson,
          };
          outcome.calls.push(call);
          const known = (input.callable ?? tools)[call.toolName];
          await log.append(sessionId, "tool_call", {
            turnId,
            stepId,
            toolCallId: call.toolCallId,
            toolName: call.toolName,
            input: call.input,
            basedOnSeq: input.basedOnSeq,
            title: known ? describeCall(known, call.input) : call.toolName,
            kind: known?.kind ?? "unknown",
          });
          break;
        }
        case "model-call-end":
          outcome.usage = toTokenUsage(part.usage);
          break;
        case "error":
          outcome.error ??= part.error;
          break;
        default:
          break;
      }
    }
  } catch (error) {
    if (signal.aborted) outcome.aborted = true;
    else outcome.error ??= error;
  }
  if (signal.aborted) outcome.aborted = true;
  return { outcome, reasoning };
}

/** What the SDK would retry: an API call it marks retryable (no connection, 408, 409, 429, 5xx). */
function isRetryable(error: unknown): boolean {
  return APICallError.isInstance(error) && error.isRetryable;
}

const FIRST_RETRY_MS = 2_000;
const MAX_SERVER_WAIT_MS = 60_000;

/** The provider's Retry-After when it gives a sensible one, else 2 s, 4 s, 8 s... */
function retryDelay(error: unknown, attempt: number): number {
  const headers = APICallError.isInstance(error) ? (error.responseHeaders ?? {}) : {};
  const ms = Number(headers["retry-after-ms"]);
  const seconds = Number(headers["retry-after"]);
  const asked =
    Number.isFinite(ms) && headers["retry-after-ms"] !== undefined
      ? ms
      : Number.isFinite(seconds) && headers["retry-after"] !== undefined
        ? seconds * 1000
        : NaN;
  if (asked >= 0 && asked <= MAX_SERVER_WAIT_MS) return asked;
  return FIRST_RETRY_MS * 2 ** (attempt - 1);
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  });
}
