import type { LanguageModelUsage } from "ai";
import type { TokenUsage } from "@/lib/session-events";
import type { AgentStore } from "@/server/agent/agent-store";
import { defaultAcceptsImages, defaultContextWindow, type ModelRegistry } from "@/server/agent/providers";

// Token usage and cost. Prices are USD per million tokens, set per model by an admin
// (model.setSettings); a model without a price has no cost (null), not a made-up one.

export type ModelFacts = {
  contextWindow: number;
  /** Whether the model reads images: the admin's setting, else the catalog's default. */
  acceptsImages: boolean;
  prices: { input: number; output: number; cachedInput: number } | null;
};

/**
 * `models`: asks the model's server for the window it really runs (Ollama) when no admin set one.
 */
export async function loadModelFacts(
  store: AgentStore,
  modelId: string,
  models?: Pick<ModelRegistry, "contextWindow">,
): Promise<ModelFacts> {
  const row = await store.settings.model(modelId);
  const served = row?.contextWindow == null && models ? await models.contextWindow(modelId) : null;
  const prices =
    row?.inputPerMTok != null && row.outputPerMTok != null
      ? { input: row.inputPerMTok, output: row.outputPerMTok, cachedInput: row.cachedInputPerMTok ?? row.inputPerMTok }
      : null;
  return {
    contextWindow: row?.contextWindow ?? served ?? defaultContextWindow(modelId),
    acceptsImages: row?.acceptsImages ?? defaultAcceptsImages(modelId),
    prices,
  };
}

export function toTokenUsage(usage: LanguageModelUsage | undefined): TokenUsage {
  return {
    inputTokens: usage?.inputTokens ?? 0,
    outputTokens: usage?.outputTokens ?? 0,
    cachedInputTokens: usage?.inputTokenDetails?.cacheReadTokens ?? 0,
    reasoningTokens: usage?.outputTokenDetails?.reasoningTokens ?? 0,
  };
}

export function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cachedInputTokens: a.cachedInputTokens + b.cachedInputTokens,
    reasoningTokens: a.reasoningTokens + b.reasoningTokens,
  };
}

export function costOf(usage: TokenUsage, prices: ModelFacts["prices"]): number | null {
  if (!prices) return null;
  const uncached = Math.max(0, usage.inputTokens - usage.cachedInputTokens);
  return (
    (uncached * prices.input + usage.cachedInputTokens * prices.cachedInput + usage.outputTokens * prices.output) /
    1_000_000
  );
}
