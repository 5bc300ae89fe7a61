import type { EmbeddingModel } from "ai";
import {
  EMBEDDING_PROVIDERS,
  baseUrlOf,
  providerSpec,
  type EmbeddingConfig,
  type ModelsConfig,
} from "@/lib/model-providers";
import { ModelConfigError, parseModelId } from "@/server/agent/providers";
import { embeddingFactory, ownEmbeddingEndpoint } from "@/server/agent/provider-factories";

// The embedding model of semantic knowledge search, from the same providers as the chat models
// (their keys and URLs), or from an OpenAI-compatible endpoint of its own (TANDEM_EMBEDDING_BASE_URL:
// a local embeddings server beside a hosted chat model). Anthropic has no embeddings API.

export type Embedder = { id: string; model: EmbeddingModel; endpoint: string };

export function createEmbedder(embedding: EmbeddingConfig, models: ModelsConfig): Embedder {
  const ref = parseModelId(embedding.model);
  if (embedding.baseURL) {
    const own = ownEmbeddingEndpoint(embedding.baseURL, embedding.apiKey);
    return { id: ref.id, model: own(ref.name), endpoint: embedding.baseURL };
  }
  const spec = providerSpec(ref.provider);
  if (!spec.embeds) {
    throw new ModelConfigError(
      `The ${ref.provider} provider has no embedding models; use ${EMBEDDING_PROVIDERS.slice(0, -1).join(", ")} or ${EMBEDDING_PROVIDERS.at(-1)}.`,
    );
  }
  const factory = embeddingFactory(models, ref.provider);
  if (!factory) {
    const needs = spec.configuredBy === "apiKey" ? spec.apiKeyVariable : spec.baseUrlVariable?.name;
    throw new ModelConfigError(`${ref.id} needs ${needs} (or TANDEM_EMBEDDING_BASE_URL for another server).`);
  }
  return { id: ref.id, model: factory(ref.name), endpoint: baseUrlOf(models, ref.provider)! };
}
