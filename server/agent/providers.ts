import type { LanguageModel } from "ai";
import type { ModelsConfig } from "@/server/env";
import { createModelCatalog, type ModelCatalog } from "@/server/agent/model-catalog";
import { PROVIDERS, providerFactories, type ProviderId } from "@/server/agent/provider-factories";
import type { ModelThread } from "@/server/agent/model-thread/model-thread";

// The model registry: model ids are `provider:model` (e.g. `anthropic:claude-sonnet-4-5`,
// `ollama:qwen3:8b`). Providers come from the AI SDK and are configured by environment variables
// (server/env.ts), which hands them over as ModelsConfig; this file reads no environment.

export { PROVIDERS, type ProviderId };

/** What each provider needs, in words a person can act on. */
const SETUP: Record<ProviderId, string> = {
  openai: "Set OPENAI_API_KEY (and OPENAI_BASE_URL for a proxy).",
  anthropic: "Set ANTHROPIC_API_KEY.",
  google: "Set GOOGLE_GENERATIVE_AI_API_KEY.",
  "openai-compatible":
    "Set TANDEM_OPENAI_COMPATIBLE_BASE_URL (and TANDEM_OPENAI_COMPATIBLE_API_KEY if the server needs one).",
  ollama: "Start Ollama, or set OLLAMA_BASE_URL to where it listens.",
};

/** A model to suggest when a provider is configured and TANDEM_MODEL is unset. */
const SUGGESTED: Record<ProviderId, string[]> = {
  anthropic: ["claude-sonnet-4-5", "claude-opus-4-1", "claude-haiku-4-5"],
  openai: ["gpt-5", "gpt-5-mini", "gpt-4.1"],
  google: ["gemini-2.5-pro", "gemini-2.5-flash"],
  "openai-compatible": [],
  ollama: [],
};

export class ModelConfigError extends Error {}

export type ModelRef = { id: string; provider: ProviderId; name: string };

export function parseModelId(id: string): ModelRef {
  const colon = id.indexOf(":");
  const provider = id.slice(0, colon) as ProviderId;
  const name = id.slice(colon + 1);
  if (colon < 1 || !PROVIDERS.includes(provider) || !name) {
    throw new ModelConfigError(
      `"${id}" is not a model id. Use provider:model, with provider one of ${PROVIDERS.join(", ")}.`,
    );
  }
  return { id, provider, name };
}

export type ModelInfo = { id: string; provider: ProviderId; configured: boolean; default: boolean };
/**
 * `suggestions`: well-known models of a hosted provider. `models`: what an OpenAI-compatible
 * server (Ollama, vLLM, LM Studio...) lists as installed; `unreachable` says why it listed nothing.
 */
export type ProviderInfo = {
  provider: ProviderId;
  configured: boolean;
  setup: string;
  suggestions: string[];
  models: string[];
  unreachable?: string;
};

export type ModelRegistry = {
  defaultModel: string | null;
  /** Each provider, asking the OpenAI-compatible ones for their models. */
  providers(): Promise<ProviderInfo[]>;
  /** The AI SDK model for an id; throws ModelConfigError with what to set when it cannot. */
  resolve(id: string): LanguageModel;
  /** Where requests for this model go, for error messages. */
  endpoint(id: string): string;
};

/**
 * `thread`: where models stream (model-thread/); without one, they stream in this thread. What
 * `resolve` returns is an AI SDK model either way.
 */
export function createModelRegistry(
  config: ModelsConfig,
  catalog: ModelCatalog = createModelCatalog(),
  thread?: ModelThread,
): ModelRegistry {
  // Ollama needs no key: it counts as configured when it is set up on purpose or when it answers.
  const ollamaChosen = config.ollama.explicit || !!config.defaultModel?.startsWith("ollama:");
  const configured: Record<ProviderId, boolean> = {
    openai: !!config.openai,
    anthropic: !!config.anthropic,
    google: !!config.google,
    "openai-compatible": !!config.openaiCompatible,
    ollama: ollamaChosen,
  };
  const factories = providerFactories(config);

  const firstConfigured = (["anthropic", "openai", "google"] as const).find((p) => configured[p]);
  const defaultModel =
    config.defaultModel ?? (firstConfigured ? `${firstConfigured}:${SUGGESTED[firstConfigured][0]}` : null);
  const cache = new Map<string, LanguageModel>();
  const baseUrlOf = (provider: ProviderId) => {
    if (provider === "openai-compatible") return config.openaiCompatible?.baseURL ?? "(not configured)";
    if (provider === "ollama") return config.ollama.baseURL;
    if (provider === "openai") return config.openai?.baseURL ?? "https://api.openai.com/v1";
    return provider === "anthropic" ? "https://api.anthropic.com" : "https://generativelanguage.googleapis.com";
  };
  const endpoint = (id: string) => baseUrlOf(parseModelId(id).provider);

  return {
    defaultModel,
    async providers() {
      const [compatible, ollama] = await Promise.all([
        config.openaiCompatible ? catalog.list(config.openaiCompatible.baseURL, config.openaiCompatible.apiKey) : null,
        catalog.list(config.ollama.baseURL),
      ]);
      const listed: Partial<Record<ProviderId, typeof ollama>> = {
        "openai-compatible": compatible ?? undefined,
        ollama,
      };
      return PROVIDERS.map((provider) => {
        const answer = listed[provider];
        const models = answer?.reachable ? answer.models : [];
        return {
          provider,
          configured: configured[provider] || (provider === "ollama" && !!answer?.reachable),
          setup: SETUP[provider],
          suggestions: SUGGESTED[provider],
          models,
          ...(answer && !answer.reachable && configured[provider]
            ? { unreachable: `${baseUrlOf(provider)}: ${answer.reason}` }
            : {}),
        };
      });
    },
    resolve(id) {
      const ref = parseModelId(id);
      const factory = factories[ref.provider];
      if (!factory)
        throw new ModelConfigError(`The ${ref.provider} provider is not configured. ${SETUP[ref.provider]}`);
      let model = cache.get(id);
      if (!model) {
        const local = factory(ref.name);
        cache.set(
          id,
          (model = thread ? thread.wrap(local, { config, provider: ref.provider, name: ref.name }) : local),
        );
      }
      return model;
    },
    endpoint,
  };
}

/** Context windows in tokens, by model-name prefix; an admin can override per model (ModelSetting). */
const CONTEXT_WINDOWS: [RegExp, number][] = [
  [/^claude-/, 200_000],
  [/^gpt-4\.1/, 1_000_000],
  [/^gpt-5/, 400_000],
  [/^(gpt-4o|o\d)/, 128_000],
  [/^gemini-/, 1_000_000],
];

/**
 * Whether a model reads images, by name: the hosted vision families do; an OpenAI-compatible or
 * Ollama model is not known by name, so it does not until an admin says so (model.setSettings).
 */
const READS_IMAGES: RegExp[] = [
  /^claude-(3|sonnet|opus|haiku-4)/,
  /^gpt-4o/,
  /^gpt-4\.1/,
  /^gpt-5/,
  /^o[34]/,
  /^gemini-/,
];

export function defaultAcceptsImages(id: string): boolean {
  const ref = parseModelId(id);
  if (ref.provider === "ollama" || ref.provider === "openai-compatible") return false;
  return READS_IMAGES.some((pattern) => pattern.test(ref.name));
}

export function defaultContextWindow(id: string): number {
  const ref = parseModelId(id);
  if (ref.provider === "ollama" || ref.provider === "openai-compatible") return 32_000;
  return CONTEXT_WINDOWS.find(([pattern]) => pattern.test(ref.name))?.[1] ?? 128_000;
}
