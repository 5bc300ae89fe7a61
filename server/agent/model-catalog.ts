import { z } from "zod";

// What an OpenAI-compatible server (Ollama, vLLM, LM Studio, a gateway) says it can run: its
// GET /models list. Unlike the hosted providers these have no fixed catalogue to suggest, so the
// model picker asks them. Answers are kept for a short while: the picker opens often, and a
// server that is down must not slow every model.list by its timeout.

const modelsResponse = z.object({ data: z.array(z.object({ id: z.string().min(1).max(200) })) });

export type EndpointModels = { reachable: true; models: string[] } | { reachable: false; reason: string };

export type ModelCatalog = { list(baseURL: string, apiKey?: string): Promise<EndpointModels> };

export function createModelCatalog(
  options: { timeoutMs?: number; ttlMs?: number; fetch?: typeof fetch } = {},
): ModelCatalog {
  const { timeoutMs = 1_500, ttlMs = 30_000, fetch: get = fetch } = options;
  const cache = new Map<string, { at: number; answer: Promise<EndpointModels> }>();

  async function ask(baseURL: string, apiKey: string | undefined): Promise<EndpointModels> {
    try {
      const response = await get(`${baseURL.replace(/\/+$/, "")}/models`, {
        headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {},
        signal: AbortSignal.timeout(timeoutMs),
      });
      if (!response.ok) return { reachable: false, reason: `GET /models answered ${response.status}` };
      const parsed = modelsResponse.safeParse(await response.json().catch(() => null));
      if (!parsed.success) return { reachable: false, reason: "GET /models did not answer a model list" };
      return { reachable: true, models: [...new Set(parsed.data.data.map((m) => m.id))].sort() };
    } catch (error) {
      const timedOut = error instanceof Error && error.name === "TimeoutError";
      return { reachable: false, reason: timedOut ? `no answer within ${timeoutMs} ms` : "not reachable" };
    }
  }

  return {
    list(baseURL, apiKey) {
      const key = `${baseURL}\n${apiKey ?? ""}`;
      const hit = cache.get(key);
      if (hit && Date.now() - hit.at < ttlMs) return hit.answer;
      const answer = ask(baseURL, apiKey);
      cache.set(key, { at: Date.now(), answer });
      return answer;
    },
  };
}
