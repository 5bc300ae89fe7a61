import { APICallError, RetryError } from "ai";
import type { SessionErrorCode } from "@/lib/session-events";
import { PROVIDERS, keyVariableOf, type ProviderId } from "@/lib/model-providers";
import { ModelConfigError, parseModelId, type ModelRegistry } from "@/server/agent/providers";

export type AgentError = { code: SessionErrorCode; message: string; detail?: string };

const CONTEXT_TOO_LONG =
  /context.{0,20}(length|window)|too (long|many tokens)|maximum.{0,30}tokens|prompt is too long|exceeds.{0,30}(context|token)/i;

/** Turns whatever a provider call threw into a message a person can act on. */
export function describeModelError(error: unknown, modelId: string, endpoint: string): AgentError {
  if (error instanceof ModelConfigError) return { code: "not_configured", message: error.message };
  let cause = error;
  let retries = 0;
  if (RetryError.isInstance(error)) {
    retries = error.errors.length - 1;
    cause = error.lastError;
  }
  const provider = safeProvider(modelId);
  const detail = cause instanceof Error ? cause.message.slice(0, 500) : String(cause).slice(0, 500);

  if (APICallError.isInstance(cause)) {
    const status = cause.statusCode ?? 0;
    const body = `${cause.message} ${cause.responseBody ?? ""}`;
    if (status >= 200 && status < 300) {
      return {
        code: "stream_interrupted",
        message: `The connection to ${provider} broke off mid-answer. Send a message or resume to continue.`,
        detail,
      };
    }
    if (status === 401 || status === 403) {
      return {
        code: "auth",
        message: `${provider} refused the API key (HTTP ${status}). Check ${isProvider(provider) ? keyVariableOf(provider) : "the provider's key"} on the server.`,
        detail,
      };
    }
    if (status === 404 || /model.{0,40}(not found|does not exist|unknown)/i.test(body)) {
      return {
        code: "unknown_model",
        message: `${provider} does not know the model in "${modelId}". Pick another model for this session.`,
        detail,
      };
    }
    if (status === 413 || CONTEXT_TOO_LONG.test(body)) {
      return {
        code: "context_too_long",
        message: `The conversation is too long for ${modelId}. Start a new session, or pick a model with a larger context window.`,
        detail,
      };
    }
    if (status === 429) {
      return {
        code: "rate_limited",
        message: `${provider} is rate limiting requests${retries ? ` (still after ${retries} retries)` : ""}. Wait a minute and resume, or check your plan's limits.`,
        detail,
      };
    }
    if (status >= 500) {
      return {
        code: "provider_unavailable",
        message: `${provider} failed (HTTP ${status})${retries ? ` after ${retries} retries` : ""}. Resume to try again.`,
        detail,
      };
    }
    if (!status) {
      return {
        code: "provider_unavailable",
        message: `Could not reach ${provider} at ${endpoint}. Check that it is running and reachable, then resume.`,
        detail,
      };
    }
    return {
      code: "internal",
      message: `${provider} rejected the request (HTTP ${status}): ${cause.message.slice(0, 200)}`,
      detail,
    };
  }
  if (/fetch failed|ECONNREFUSED|ENOTFOUND|EAI_AGAIN/i.test(detail)) {
    return {
      code: "provider_unavailable",
      message: `Could not reach ${provider} at ${endpoint}. Check that it is running and reachable, then resume.`,
      detail,
    };
  }
  if (/terminated|socket|ECONNRESET|premature|aborted/i.test(detail)) {
    return {
      code: "stream_interrupted",
      message: `The connection to ${provider} broke off mid-answer. Send a message or resume to continue.`,
      detail,
    };
  }
  return { code: "internal", message: `The model call failed: ${detail.slice(0, 200)}`, detail };
}

const isProvider = (name: string): name is ProviderId => (PROVIDERS as string[]).includes(name);

function safeProvider(modelId: string): string {
  try {
    return parseModelId(modelId).provider;
  } catch {
    return "the provider";
  }
}

/** Where a model's calls go, for messages; "(unknown)" when its provider is not set up. */
export function safeEndpoint(models: Pick<ModelRegistry, "endpoint">, id: string): string {
  try {
    return models.endpoint(id);
  } catch (error) {
    if (error instanceof ModelConfigError) return "(unknown)";
    throw error;
  }
}
