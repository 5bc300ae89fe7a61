import { createAnthropic } from "@ai-sdk/anthropic";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { EmbeddingModel, LanguageModel } from "ai";
import {
  type MODEL_PROVIDERS,
  PROVIDERS,
  baseUrlOf,
  type ModelsConfig,
  type ProviderConnection,
  type ProviderId,
} from "@/lib/model-providers";

// The AI SDK's provider models, one factory per entry of lib/model-providers.ts. Apart from the
// registry (providers.ts), so that the model thread (model-thread/) builds the same models from the
// same config without loading the registry, its catalog and its messages.

/** The AI SDK's current model interface, the one its providers return. */
export type ProviderModel = Extract<LanguageModel, { specificationVersion: "v4" }>;

/** A connection with the URL it uses (the configured one, else the provider's default). */
type Endpoint = ProviderConnection & { url: string | undefined };
type Factory = {
  chat(endpoint: Endpoint): (name: string) => ProviderModel;
  embedding(endpoint: Endpoint): (name: string) => EmbeddingModel;
};
/** A provider whose entry says it embeds must make embedding models; one that does not, must not. */
type Factories = {
  [P in ProviderId]: (typeof MODEL_PROVIDERS)[P]["embeds"] extends true ? Factory : Omit<Factory, "embedding">;
};

const openAICompatible = (name: string, endpoint: Endpoint) =>
  createOpenAICompatible({ name, baseURL: endpoint.url!, apiKey: endpoint.apiKey, includeUsage: true });

const FACTORIES: Factories = {
  openai: {
    chat: (endpoint) => createOpenAI({ apiKey: endpoint.apiKey, baseURL: endpoint.baseURL }),
    embedding: (endpoint) => createOpenAI({ apiKey: endpoint.apiKey, baseURL: endpoint.baseURL }).embeddingModel,
  },
  anthropic: { chat: (endpoint) => createAnthropic({ apiKey: endpoint.apiKey }) },
  google: {
    chat: (endpoint) => createGoogleGenerativeAI({ apiKey: endpoint.apiKey }),
    embedding: (endpoint) => createGoogleGenerativeAI({ apiKey: endpoint.apiKey }).embeddingModel,
  },
  "openai-compatible": {
    chat: (endpoint) => openAICompatible("openai-compatible", endpoint).chatModel,
    embedding: (endpoint) => openAICompatible("openai-compatible", endpoint).embeddingModel,
  },
  ollama: {
    chat: (endpoint) => openAICompatible("ollama", endpoint).chatModel,
    embedding: (endpoint) => openAICompatible("ollama", endpoint).embeddingModel,
  },
};

function endpointOf(config: ModelsConfig, provider: ProviderId): Endpoint | null {
  const connection = config.connections[provider];
  return connection ? { ...connection, url: baseUrlOf(config, provider) ?? undefined } : null;
}

/** A maker of models for each provider the config connects (Ollama always: it needs no key). */
export function providerFactories(config: ModelsConfig): Partial<Record<ProviderId, (name: string) => ProviderModel>> {
  const factories: Partial<Record<ProviderId, (name: string) => ProviderModel>> = {};
  for (const provider of PROVIDERS) {
    const endpoint = endpointOf(config, provider);
    if (endpoint) factories[provider] = FACTORIES[provider].chat(endpoint);
  }
  return factories;
}

/** A maker of embedding models for a provider the config connects; null when it is not connected or does not embed. */
export function embeddingFactory(
  config: ModelsConfig,
  provider: ProviderId,
): ((name: string) => EmbeddingModel) | null {
  const endpoint = endpointOf(config, provider);
  const factory: Partial<Factory> = FACTORIES[provider];
  return endpoint && factory.embedding ? factory.embedding(endpoint) : null;
}

/** Embedding models from an OpenAI-compatible endpoint of their own (TANDEM_EMBEDDING_BASE_URL). */
export function ownEmbeddingEndpoint(baseURL: string, apiKey: string | undefined): (name: string) => EmbeddingModel {
  return createOpenAICompatible({ name: "embeddings", baseURL, apiKey }).embeddingModel;
}
