import { afterAll, describe, expect, it } from "vitest";
import { createAgentHarness, only } from "@/server/test/agent-harness";
import { createModelCatalog } from "./model-catalog";
import { startModelServer } from "@/e2e/fixtures/model-server/server";

// Ollama's OpenAI-compatible endpoint runs a model with the context Ollama was told (4k by default)
// and silently drops what does not fit, so Tandem asks Ollama's own API what it really runs and
// sizes the turn to that: the share of one tool result, the compaction trigger.

describe("an Ollama model's real window", () => {
  let h: Awaited<ReturnType<typeof createAgentHarness>> | undefined;
  afterAll(() => h?.dispose());

  it("a turn on Ollama cuts a tool's result to the context Ollama runs the model with (GET /api/ps)", async () => {
    h = await createAgentHarness({ ollama: { loaded: [{ name: "scripted", context_length: 8_192 }] } });
    const words = Array.from({ length: 3_000 }, (_, i) => `w${i}`).join("\n");
    const session = await h.newSession({
      replies: [{ toolCalls: [{ id: "big", name: "echo", arguments: { text: words } }] }, { text: "Read it." }],
    });
    expect((await h.caller.session.get({ sessionId: session.id })).model).toBe("ollama:scripted");
    const events = await h.send(session.id, "echo a lot");
    const llm = only(events, "tool_result")[0]!.payload.llm;
    // 15% of 8,192 tokens at 4 characters each: 4,915 characters (a 32k default would allow 19,200).
    expect(llm.length).toBeLessThan(5_500);
    expect(llm).toMatch(/\[Output cut: showing the first \d+ of 3000 lines/);
  }, 60_000);
});

describe("asking Ollama for the window", () => {
  const servers: Awaited<ReturnType<typeof startModelServer>>[] = [];
  afterAll(async () => Promise.all(servers.map((s) => s.close())));
  const ask = async (ollama: Parameters<typeof startModelServer>[0] extends infer O ? O : never) => {
    const server = await startModelServer(ollama as never);
    servers.push(server);
    return createModelCatalog().ollamaWindow(server.url, "qwen", 32_000);
  };

  it("reads the loaded model's context, else its num_ctx, else what it was trained for (capped)", async () => {
    expect(await ask({ ollama: { loaded: [{ name: "qwen", context_length: 4_096 }] } })).toBe(4_096);
    expect(await ask({ ollama: { show: { parameters: "stop <eos>\nnum_ctx 16384\n" } } })).toBe(16_384);
    expect(await ask({ ollama: { show: { model_info: { "qwen2.context_length": 131_072 } } } })).toBe(32_000);
    expect(await ask({ ollama: { show: { model_info: { "llama.context_length": 8_192 } } } })).toBe(8_192);
    // A server that is not Ollama (or does not know the model) says nothing: the default stands.
    expect(await ask({})).toBeNull();
    expect(await ask({ ollama: {} })).toBeNull();
  });
});
