import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { EmbeddingModel } from "ai";
import type { EmbeddingConfig, ModelsConfig } from "@/server/env";
import { ModelConfigError, parseModelId } from "@/server/agent/providers";

// The embedding model of semantic knowledge search, from the same providers as the chat models
// (their keys and URLs), or from an OpenAI-compatible endpoint of its own (TANDEM_EMBEDDING_BASE_URL:
// a local embeddings server beside a hosted chat model). Anthropic has no embeddings API.

export type Embedder = { id: string; model: EmbeddingModel; endpoint: string };

export function createEmbedder(embedding: EmbeddingConfig, models: ModelsConfig): Embedder {
  const ref = parseModelId(embedding.model);
  if (embedding.baseURL) {
    const own = createOpenAICompatible({ name: "embeddings", baseURL: embedding.baseURL, apiKey: embedding.apiKey });
    return { id: ref.id, model: own.embeddingModel(ref.name), endpoint: embedding.baseURL };
  }
  switch (ref.provider) {
    case "openai": {
      if (!models.openai)
        throw new ModelConfigError(`${ref.id} needs OPENAI_API_KEY (or TANDEM_EMBEDDING_BASE_URL for another server).`);
      const openai = createOpenAI({ apiKey: models.openai.apiKey, baseURL: models.openai.baseURL });
      return {
        id: ref.id,
        model: openai.embeddingModel(ref.name),
        endpoint: models.openai.baseURL ?? "https://api.openai.com/v1",
      };
    }
    case "google": {
      if (!models.google) throw new ModelConfigError(`${ref.id} needs GOOGLE_GENERATIVE_AI_API_KEY.`);
      const google = createGoogleGenerativeAI({ apiKey: models.google.apiKey });
      return {
        id: ref.id,
        model: google.embeddingModel(ref.name),
        endpoint: "https://generativelanguage.googleapis.com",
      };
    }
    case "openai-compatible": {
      if (!models.openaiCompatible)
        throw new ModelConfigError(`${ref.id} needs TANDEM_OPENAI_COMPATIBLE_BASE_URL or TANDEM_EMBEDDING_BASE_URL.`);
      const compatible = createOpenAICompatible({
        name: "openai-compatible",
        baseURL: models.openaiCompatible.baseURL,
        apiKey: models.openaiCompatible.apiKey,
      });
      return { id: ref.id, model: compatible.embeddingModel(ref.name), endpoint: models.openaiCompatible.baseURL };
    }
    case "ollama": {
      const ollama = createOpenAICompatible({ name: "ollama", baseURL: models.ollama.baseURL });
      return { id: ref.id, model: ollama.embeddingModel(ref.name), endpoint: models.ollama.baseURL };
    }
    default:
      throw new ModelConfigError(
        `The ${ref.provider} provider has no embedding models; use openai, google, openai-compatible or ollama.`,
      );
  }
}
