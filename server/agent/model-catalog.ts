import { z } from "zod";

// What an OpenAI-compatible server (Ollama, vLLM, LM Studio, a gateway) says it can run: its
// GET /models list. Unlike the hosted providers these have no fixed catalogue to suggest, so the
// model picker asks them. Answers are kept for a short while: the picker opens often, and a
// server that is down must not slow every model.list by its timeout.

const modelsResponse = z.object({ data: z.array(z.object({ id: z.string().min(1).max(200) })) });

export type EndpointModels = { reachable: true; models: string[] } | { reachable: false; reason: string };

export type ModelCatalog = {
  list(baseURL: string, apiKey?: string): Promise<EndpointModels>;
  /**
   * The context an Ollama server really runs a model with, in tokens; null when it does not say.
   * Its OpenAI-compatible endpoint takes no num_ctx and silently drops what does not fit, so the
   * window is asked of its own API: the loaded model's `context_length` (GET /api/ps), else the
   * model's `num_ctx` parameter (POST /api/show), else the context the model was trained for
   * (`<architecture>.context_length`), at most `cap`: Ollama runs a model with less unless told.
   */
  ollamaWindow(baseURL: string, model: string, cap: number): Promise<number | null>;
};

const psResponse = z.object({
  models: z.array(z.object({ name: z.string(), model: z.string().optional(), context_length: z.number().optional() })),
});
const showResponse = z.object({
  parameters: z.string().optional(),
  model_info: z.record(z.string(), z.unknown()).optional(),
});

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

  const windows = new Map<string, { at: number; answer: Promise<number | null> }>();

  async function post(url: string, body: unknown): Promise<unknown> {
    const response = await get(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    return response.ok ? response.json() : null;
  }

  async function askWindow(baseURL: string, model: string, cap: number): Promise<number | null> {
    // The native API lives beside the OpenAI-compatible one (http://host:11434/v1 -> http://host:11434).
    const native = baseURL.replace(/\/+$/, "").replace(/\/v1$/, "");
    try {
      const ps = psResponse.safeParse(
        await get(`${native}/api/ps`, { signal: AbortSignal.timeout(timeoutMs) }).then((r) => (r.ok ? r.json() : null)),
      );
      const loaded = ps.success ? ps.data.models.find((m) => m.name === model || m.model === model) : undefined;
      if (loaded?.context_length) return loaded.context_length;
      const show = showResponse.safeParse(await post(`${native}/api/show`, { model }));
      if (!show.success) return null;
      const numCtx = /^num_ctx\s+(\d+)\s*$/m.exec(show.data.parameters ?? "");
      if (numCtx) return Number(numCtx[1]);
      const trained = Object.entries(show.data.model_info ?? {}).find(
        ([key, value]) => key.endsWith(".context_length") && typeof value === "number",
      );
      return trained ? Math.min(trained[1] as number, cap) : null;
    } catch {
      return null;
    }
  }

  return {
    ollamaWindow(baseURL, model, cap) {
      const key = `${baseURL}\n${model}\n${cap}`;
      const hit = windows.get(key);
      if (hit && Date.now() - hit.at < ttlMs) return hit.answer;
      const answer = askWindow(baseURL, model, cap);
      windows.set(key, { at: Date.now(), answer });
      return answer;
    },
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
