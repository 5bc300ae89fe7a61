import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { APICallError, experimental_streamLanguageModelCall as streamLanguageModelCall, jsonSchema, tool } from "ai";
import { startModelServer, type ModelServer } from "@/e2e/fixtures/model-server/server";
import type { ModelsConfig } from "@/lib/model-providers";
import { loadConfig } from "@/server/env/load-config";
import { providerFactories, type ProviderModel } from "@/server/agent/provider-factories";
import { createModelThread, type ModelThread } from "@/server/agent/model-thread/model-thread";

// The model thread against a real OpenAI-compatible server on loopback (the scripted model): what
// the agent step reads from a model streamed there is what it would read from one streamed here.

let server: ModelServer;
let config: ModelsConfig;
let thread: ModelThread;

/** The model as the registry wraps it, with this thread's stream taken away: only the model thread can answer. */
/** The config with its OpenAI-compatible provider at `baseURL`. */
function compatibleAt(baseURL: string, models: ModelsConfig = config): ModelsConfig {
  return {
    ...models,
    connections: { ...models.connections, "openai-compatible": { baseURL, apiKey: "test", explicit: true } },
  };
}

function modelOnThread(target: ModelThread, models: ModelsConfig = config, name = "scripted"): ProviderModel {
  const local = providerFactories(models)["openai-compatible"]!(name);
  const noLocalStream: ProviderModel = {
    specificationVersion: local.specificationVersion,
    provider: local.provider,
    modelId: local.modelId,
    supportedUrls: local.supportedUrls,
    doGenerate: (options) => local.doGenerate(options),
    doStream: () => Promise.reject(new Error("streamed in the server's thread")),
  };
  return target.wrap(noLocalStream, { config: models, provider: "openai-compatible", name });
}

async function readAll(model: ProviderModel, signal?: AbortSignal) {
  const result = await streamLanguageModelCall({
    model,
    messages: [{ role: "user", content: "hello" }],
    tools: {
      write_file: tool({
        description: "Writes a file",
        inputSchema: jsonSchema({ type: "object", properties: { path: { type: "string" } } }),
      }),
    },
    abortSignal: signal,
  });
  const parts = [];
  for await (const part of result.stream) parts.push(part);
  return parts;
}

beforeAll(async () => {
  server = await startModelServer();
  config = compatibleAt(server.url, loadConfig({ TANDEM_DATA_DIR: "/tmp/unused" }).models);
  thread = createModelThread();
});

afterAll(async () => {
  await thread.close();
  await server.close();
});

describe("the model thread", () => {
  it("streams text, a tool call and usage as the provider gives them", async () => {
    server.load({
      replies: [
        {
          tokens: ["Wri", "ting ", "it."],
          toolCalls: [{ name: "write_file", arguments: { path: "a.txt" } }],
          usage: { prompt_tokens: 12, completion_tokens: 3 },
        },
      ],
    });
    const parts = await readAll(modelOnThread(thread));
    const text = parts.flatMap((p) => (p.type === "text-delta" ? [p.text] : []));
    expect(text.join("")).toBe("Writing it."); // tokens that reach the thread together come as one piece
    const call = parts.find((p) => p.type === "tool-call");
    expect(call).toMatchObject({ toolName: "write_file", input: { path: "a.txt" } });
    const end = parts.find((p) => p.type === "model-call-end");
    expect(end).toMatchObject({ usage: { inputTokens: 12, outputTokens: 3 } });
    expect(server.requests.at(-1)?.tools).toEqual(["write_file"]);
  });

  it("joins the tokens of a call that reach the thread together, losing none", async () => {
    const tokens = Array.from({ length: 200 }, (_, i) => `t${i} `);
    server.load({ replies: [{ tokens }] });
    const text = (await readAll(modelOnThread(thread))).flatMap((p) => (p.type === "text-delta" ? [p.text] : []));
    expect(text.join("")).toBe(tokens.join(""));
    expect(text.length).toBeLessThan(tokens.length);
  });

  it("holds nothing back to join it when tokens come apart", async () => {
    // 150 ms apart: only a stall that long (a loaded test machine) would join two of them.
    server.load({ replies: [{ tokens: ["one ", "two ", "three ", "four"], delayMs: 150 }] });
    const pieces = (await readAll(modelOnThread(thread))).flatMap((p) => (p.type === "text-delta" ? [p.text] : []));
    expect(pieces.join("")).toBe("one two three four");
    expect(pieces.length).toBeGreaterThanOrEqual(3);
  });

  it("gives a provider's refusal back as the SDK's APICallError, with its status, headers and retryability", async () => {
    server.load({
      replies: [
        { status: 429, headers: { "retry-after": "3" } },
        { status: 400, body: JSON.stringify({ error: { message: "bad tool schema" } }) },
      ],
    });
    const model = modelOnThread(thread);
    const options = { prompt: [{ role: "user" as const, content: [{ type: "text" as const, text: "hi" }] }] };
    const limited = await Promise.resolve(model.doStream(options)).catch((error: unknown) => error);
    expect(APICallError.isInstance(limited)).toBe(true);
    expect(limited).toMatchObject({ statusCode: 429, isRetryable: true, responseHeaders: { "retry-after": "3" } });
    const refused = await Promise.resolve(model.doStream(options)).catch((error: unknown) => error);
    expect(refused).toMatchObject({ statusCode: 400, isRetryable: false });
    expect((refused as APICallError).message).toContain("bad tool schema");
  });

  it("says when the provider cannot be reached", async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const nowhere = compatibleAt(`http://127.0.0.1:${port}/v1`);
    const error = await Promise.resolve(
      modelOnThread(thread, nowhere).doStream({ prompt: [{ role: "user", content: [{ type: "text", text: "hi" }] }] }),
    ).catch((e: unknown) => e);
    expect(APICallError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ isRetryable: true });
    expect(String((error as APICallError).cause)).toMatch(/fetch failed|ECONNREFUSED/);
  });

  it("a cancel mid-answer ends the stream here and closes the provider's request there", async () => {
    // A provider that sends one token, then waits; it notes when the request goes away.
    let gone!: () => void;
    const requestGone = new Promise<void>((resolve) => (gone = resolve));
    const provider = http.createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(
        `data: ${JSON.stringify({ id: "1", object: "chat.completion.chunk", created: 0, model: "m", choices: [{ index: 0, delta: { role: "assistant", content: "first" }, finish_reason: null }] })}\n\n`,
      );
      res.on("close", () => gone());
    });
    await new Promise<void>((resolve) => provider.listen(0, "127.0.0.1", resolve));
    try {
      const hanging = compatibleAt(`http://127.0.0.1:${(provider.address() as AddressInfo).port}/v1`);
      const controller = new AbortController();
      const result = await streamLanguageModelCall({
        model: modelOnThread(thread, hanging),
        messages: [{ role: "user", content: "hi" }],
        abortSignal: controller.signal,
      });
      const seen: string[] = [];
      const reading = (async () => {
        for await (const part of result.stream) {
          if (part.type === "text-delta") {
            seen.push(part.text);
            controller.abort();
          }
        }
      })();
      await expect(reading).rejects.toThrow(/abort/i);
      expect(seen).toEqual(["first"]);
      await requestGone; // the thread dropped the provider's connection
    } finally {
      provider.closeAllConnections();
      await new Promise<void>((resolve) => provider.close(() => resolve()));
    }
  });

  it("stops when idle and starts again for the next call", async () => {
    const brief = createModelThread({ idleMs: 20 });
    try {
      server.load({ replies: [{ text: "one" }, { text: "two" }] });
      const model = modelOnThread(brief);
      expect(brief.running).toBe(false);
      expect(brief.eventLoopUtilization()).toBeNull(); // no loop to weigh in the server's load (loop-load.ts)
      expect((await readAll(model)).some((p) => p.type === "text-delta" && p.text === "one")).toBe(true);
      expect(brief.eventLoopUtilization()?.utilization).toBeGreaterThan(0);
      await expect.poll(() => brief.running, { timeout: 5_000 }).toBe(false);
      expect(brief.eventLoopUtilization()).toBeNull();
      expect((await readAll(model)).some((p) => p.type === "text-delta" && p.text === "two")).toBe(true);
    } finally {
      await brief.close();
    }
  });

  it("fails the calls in flight, with a reason, when the thread is stopped", async () => {
    server.load({ replies: [{ text: "never finished", hang: true }] });
    const result = await streamLanguageModelCall({
      model: modelOnThread(thread),
      messages: [{ role: "user", content: "hi" }],
    });
    const reading = (async () => {
      for await (const part of result.stream) if (part.type === "text-delta") void thread.close();
    })();
    await expect(reading).rejects.toThrow(/stopping/);
    thread = createModelThread();
  });
});
