import type { LanguageModel } from "ai";
import {
  PROVIDERS,
  baseUrlOf,
  isModelId,
  providerSpec,
  type ModelsConfig,
  type ProviderId,
} from "@/lib/model-providers";
import { createModelCatalog, type ModelCatalog } from "@/server/agent/model-catalog";
import { providerFactories } from "@/server/agent/provider-factories";
import type { ModelThread } from "@/server/agent/model-thread/model-thread";

// The model registry: model ids are `provider:model` (e.g. `anthropic:claude-sonnet-4-5`,
// `ollama:qwen3:8b`). Providers are the entries of lib/model-providers.ts, their models come from
// provider-factories.ts, and their keys and URLs from the environment (server/env/), which hands
// them over as ModelsConfig; this file reads no environment.

/** When TANDEM_MODEL is unset, the first of these that is configured gives the default model. */
const DEFAULT_FROM: ProviderId[] = ["anthropic", "openai", "google"];

export class ModelConfigError extends Error {}

export type ModelRef = { id: string; provider: ProviderId; name: string };

export function parseModelId(id: string): ModelRef {
  const colon = id.indexOf(":");
  const provider = id.slice(0, colon) as ProviderId;
  const name = id.slice(colon + 1);
  if (!isModelId(id)) {
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
  /** The window the model's server really runs it with, where it can say (Ollama); null otherwise. */
  contextWindow(id: string): Promise<number | null>;
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
  // A provider that needs no key (Ollama) counts as configured when it is set up on purpose, is
  // the default model's, or answers.
  const configured = (provider: ProviderId): boolean => {
    const connection = config.connections[provider];
    if (!connection) return false;
    return connection.explicit || !!config.defaultModel?.startsWith(`${provider}:`);
  };
  const factories = providerFactories(config);

  const firstConfigured = DEFAULT_FROM.find(configured);
  const defaultModel =
    config.defaultModel ??
    (firstConfigured ? `${firstConfigured}:${providerSpec(firstConfigured).suggested[0]}` : null);
  const cache = new Map<string, LanguageModel>();
  const endpoint = (id: string) => baseUrlOf(config, parseModelId(id).provider) ?? "(not configured)";

  return {
    defaultModel,
    async providers() {
      const listed = await Promise.all(
        PROVIDERS.map((provider) => {
          const connection = config.connections[provider];
          const url = baseUrlOf(config, provider);
          return providerSpec(provider).listsModels && connection && url ? catalog.list(url, connection.apiKey) : null;
        }),
      );
      return PROVIDERS.map((provider, index) => {
        const answer = listed[index];
        const spec = providerSpec(provider);
        return {
          provider,
          configured: configured(provider) || (spec.configuredBy === null && !!answer?.reachable),
          setup: spec.setup,
          suggestions: [...spec.suggested],
          models: answer?.reachable ? answer.models : [],
          ...(answer && !answer.reachable && configured(provider)
            ? { unreachable: `${baseUrlOf(config, provider)}: ${answer.reason}` }
            : {}),
        };
      });
    },
    resolve(id) {
      const ref = parseModelId(id);
      const factory = factories[ref.provider];
      if (!factory)
        throw new ModelConfigError(
          `The ${ref.provider} provider is not configured. ${providerSpec(ref.provider).setup}`,
        );
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
    async contextWindow(id) {
      const ref = parseModelId(id);
      const url = baseUrlOf(config, ref.provider);
      if (ref.provider !== "ollama" || !config.connections.ollama || !url) return null;
      return catalog.ollamaWindow(url, ref.name, defaultContextWindow(id));
    },
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
  if (!providerSpec(ref.provider).hosted) return false;
  return READS_IMAGES.some((pattern) => pattern.test(ref.name));
}

export function defaultContextWindow(id: string): number {
  const ref = parseModelId(id);
  if (!providerSpec(ref.provider).hosted) return 32_000;
  return CONTEXT_WINDOWS.find(([pattern]) => pattern.test(ref.name))?.[1] ?? 128_000;
}
