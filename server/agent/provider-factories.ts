import { createAnthropic } from "@ai-sdk/anthropic";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModel } from "ai";
import type { ModelsConfig } from "@/server/env";

// The AI SDK's provider models, made from ModelsConfig. Apart from the registry (providers.ts), so
// that the model thread (model-thread/) builds the same models from the same config without
// loading the registry, its catalog and its messages.

export const PROVIDERS = ["openai", "anthropic", "google", "openai-compatible", "ollama"] as const;
export type ProviderId = (typeof PROVIDERS)[number];

/** The AI SDK's current model interface, the one its providers return. */
export type ProviderModel = Extract<LanguageModel, { specificationVersion: "v4" }>;

/** A maker of models for each provider the config sets up (Ollama always: it needs no key). */
export function providerFactories(config: ModelsConfig): Partial<Record<ProviderId, (name: string) => ProviderModel>> {
  const factories: Partial<Record<ProviderId, (name: string) => ProviderModel>> = {};
  if (config.openai) {
    const openai = createOpenAI({ apiKey: config.openai.apiKey, baseURL: config.openai.baseURL });
    factories.openai = (name) => openai(name);
  }
  if (config.anthropic) {
    const anthropic = createAnthropic({ apiKey: config.anthropic.apiKey });
    factories.anthropic = (name) => anthropic(name);
  }
  if (config.google) {
    const google = createGoogleGenerativeAI({ apiKey: config.google.apiKey });
    factories.google = (name) => google(name);
  }
  if (config.openaiCompatible) {
    const compatible = createOpenAICompatible({
      name: "openai-compatible",
      baseURL: config.openaiCompatible.baseURL,
      apiKey: config.openaiCompatible.apiKey,
      includeUsage: true,
    });
    factories["openai-compatible"] = (name) => compatible.chatModel(name);
  }
  const ollama = createOpenAICompatible({ name: "ollama", baseURL: config.ollama.baseURL, includeUsage: true });
  factories.ollama = (name) => ollama.chatModel(name);
  return factories;
}
