import { embed } from "ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "@/server/env/load-config";
import { embedText, startEmbeddingsServer } from "@/server/test/embeddings-server";
import { createEmbedder } from "./embedding-models";

// The embedding model comes from the provider's own connection (its entry in lib/model-providers.ts
// and its factory), or from an endpoint of its own; a provider without embeddings is refused.

let server: Awaited<ReturnType<typeof startEmbeddingsServer>>;
beforeAll(async () => {
  server = await startEmbeddingsServer();
});
afterAll(async () => {
  await server.close();
});

const noOwnEndpoint = { baseURL: undefined, apiKey: undefined };

describe("createEmbedder", () => {
  it("embeds through the configured OpenAI-compatible server and through Ollama", async () => {
    for (const [model, env] of [
      ["openai-compatible:trigrams", { TANDEM_OPENAI_COMPATIBLE_BASE_URL: server.url }],
      ["ollama:trigrams", { OLLAMA_BASE_URL: server.url }],
    ] as const) {
      const embedder = createEmbedder({ model, ...noOwnEndpoint }, loadConfig(env).models);
      expect(embedder.endpoint).toBe(server.url);
      const { embedding } = await embed({ model: embedder.model, value: "rate limiter" });
      expect(embedding).toEqual(embedText("rate limiter"));
    }
  });

  it("says what to set for a provider that is not set up, and refuses one without embeddings", () => {
    const models = loadConfig({}).models;
    expect(() => createEmbedder({ model: "openai:text-embedding-3-small", ...noOwnEndpoint }, models)).toThrow(
      "openai:text-embedding-3-small needs OPENAI_API_KEY (or TANDEM_EMBEDDING_BASE_URL for another server).",
    );
    expect(() => createEmbedder({ model: "anthropic:claude-sonnet-4-5", ...noOwnEndpoint }, models)).toThrow(
      "The anthropic provider has no embedding models; use openai, google, openai-compatible or ollama.",
    );
    const hosted = loadConfig({ OPENAI_API_KEY: "sk-test" }).models;
    expect(createEmbedder({ model: "openai:text-embedding-3-small", ...noOwnEndpoint }, hosted).endpoint).toBe(
      "https://api.openai.com/v1",
    );
  });
});
