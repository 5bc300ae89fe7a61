import http from "node:http";
import type { AddressInfo } from "node:net";
import { createAnthropic } from "@ai-sdk/anthropic";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { prepareContext } from "@/server/agent/compaction";
import { dialectOf, toolsChars } from "@/server/agent/step";
import { defineTool } from "@/server/tools/define-tool";
import { ok } from "@/server/tools/result";
import { inputJsonSchema } from "@/server/tools/schema";
import { setModelSetting } from "@/server/db/repositories/agent-settings";
import { SUMMARY_PREFIX } from "@/lib/model-transcript";
import { createAgentHarness, only } from "@/server/test/agent-harness";

let h: Awaited<ReturnType<typeof createAgentHarness>>;
beforeAll(async () => {
  h = await createAgentHarness();
});
afterAll(() => h.dispose());

describe("compaction", () => {
  it("summarises older turns when the context nears a small window; the log keeps everything", async () => {
    const long = (word: string) => `${word} `.repeat(4000); // ~6,000 tokens by the 4-characters estimate
    await setModelSetting(h.env.services.db, {
      model: "openai-compatible:scripted",
      inputPerMTok: 1,
      outputPerMTok: 2,
      cachedInputPerMTok: null,
      contextWindow: 16000,
    });
    const session = await h.newSession({
      replies: [
        { match: "first question", tokens: [long("alpha")] },
        { match: "second question", tokens: [long("beta")] },
        {
          match: "Summarise the conversation",
          text: "The user asked two questions; the answers were long lists of alpha and beta.",
        },
        { match: "third question", text: "Third answer, with a compact context." },
      ],
    });
    await h.send(session.id, "first question");
    await h.send(session.id, "second question");
    expect(only(await h.events(session.id), "compaction")).toHaveLength(0);
    const events = await h.send(session.id, "third question");

    const compaction = only(events, "compaction")[0]!;
    expect(compaction.payload.summary).toMatch(/two questions/);
    expect(compaction.payload.contextWindow).toBe(16000);
    const third = h.model.requests.at(-1)!;
    expect(third.messages.map((m) => m.role)).toEqual(["system", "user", "user"]);
    // The model's summary, and the latest request word for word (this summary had paraphrased it).
    expect(String(third.messages[1]!.content)).toBe(
      `${SUMMARY_PREFIX}The user asked two questions; the answers were long lists of alpha and beta.\n\n## Latest request (word for word)\n[${h.user.name}] second question`,
    );
    expect(JSON.stringify(third.messages)).not.toContain("alpha alpha");
    // Nothing is lost from the log.
    expect(only(events, "assistant_message").map((e) => e.payload.text.slice(0, 5))).toEqual([
      "alpha",
      "beta ",
      "Third",
    ]);
    // Usage and cost from the admin's price table.
    const usage = only(events, "usage").at(-1)!.payload;
    expect(usage.sessionCostUsd).toBeGreaterThan(0);
  });
});

describe("compaction inside a long turn", () => {
  it("summarises the turn's earlier steps, keeping the latest request and the last steps, and the turn goes on", async () => {
    const long = (word: string) => `${word} `.repeat(1000); // ~1,750 tokens by the 4-characters estimate
    await setModelSetting(h.env.services.db, {
      model: "openai-compatible:scripted",
      inputPerMTok: null,
      outputPerMTok: null,
      cachedInputPerMTok: null,
      contextWindow: 10_000,
    });
    const step = (n: number) => ({
      tokens: [long(`step${n}`)],
      toolCalls: [{ id: `echo_${n}`, name: "echo", arguments: { text: `finding ${n}` } }],
    });
    const session = await h.newSession({
      replies: [
        {
          match: "Summarise the conversation",
          text: "## Learned\nfinding 1 holds.\n## Failed\nnone\n## Next step\nGo on.",
        },
        step(1),
        step(2),
        step(3),
        step(4),
        { text: "Done after compacting." },
      ],
    });
    try {
      const events = await h.send(session.id, "a long task");
      expect(only(events, "turn_started")).toHaveLength(1);
      expect(only(events, "turn_finished")[0]!.payload.reason).toBe("completed");
      const compaction = only(events, "compaction")[0]!;
      expect(compaction.payload.upToSeq).toBeGreaterThan(only(events, "turn_started")[0]!.seq);
      // The summariser was asked for what was learned and what failed.
      const summaryRequest = h.model.requests.find((r) =>
        JSON.stringify(r.messages).includes("Summarise the conversation"),
      )!;
      expect(JSON.stringify(summaryRequest.messages)).toMatch(/## Learned: .*## Failed: /);
      const last = JSON.stringify(h.model.requests.at(-1)!.messages);
      expect(last).toContain("finding 1 holds.");
      expect(last).toContain(`## Latest request (word for word)\\n[${h.user.name}] a long task`);
      expect(last).not.toContain("step1 step1");
      for (const kept of ["step2 step2", "step3 step3", "step4 step4", "echo: finding 4"]) expect(last).toContain(kept);
      expect(only(events, "assistant_message").at(-1)!.payload.text).toBe("Done after compacting.");
    } finally {
      await setModelSetting(h.env.services.db, {
        model: "openai-compatible:scripted",
        inputPerMTok: null,
        outputPerMTok: null,
        cachedInputPerMTok: null,
        contextWindow: 1_000_000,
      });
    }
  });
});

describe("the size estimate", () => {
  it("counts the tools' real schemas, not only their descriptions", () => {
    const values = Array.from({ length: 200 }, (_, i) => `value_number_${i}`);
    const wide = defineTool({
      name: "wide",
      kind: "read",
      description: "Short.",
      input: z.object({ choice: z.enum(values as [string, ...string[]]) }),
      describe: () => "Wide",
      execute: async () => ok("done"),
    });
    const schema = JSON.stringify(inputJsonSchema(wide, dialectOf("openai-compatible:scripted")));
    expect(toolsChars({ wide }, "openai-compatible:scripted")).toBeGreaterThanOrEqual(schema.length);
    expect(schema.length).toBeGreaterThan(3_000);
  });
});

describe("the summary request", () => {
  it("is accepted by providers that reject tool blocks without tools (Anthropic, Bedrock), and keeps what the work needs", async () => {
    const session = await h.newSession({
      replies: [
        {
          match: "plan the release",
          toolCalls: [
            {
              id: "todo_1",
              name: "todo_write",
              arguments: {
                todos: [
                  { id: "1", content: "bump the version", status: "in_progress" },
                  { id: "2", content: "tag it", status: "pending" },
                ],
              },
            },
            { id: "echo_1", name: "echo", arguments: { text: "version 1.2.3" } },
          ],
        },
        {
          match: "echo: version",
          toolCalls: [{ id: "write_1", name: "write", arguments: { path: "secrets.txt", content: "x" } }],
        },
        { match: "use config.yaml instead", text: "Understood, I will not write secrets.txt." },
      ],
    });
    await h.send(session.id, "plan the release");
    const requested = only(await h.events(session.id), "approval_requested")[0]!;
    await h.caller.approval.respond({
      approvalId: requested.payload.approvalId,
      decision: "reject",
      feedback: "use config.yaml instead",
    });
    await h.agent.idle(session.id);
    const history = await h.events(session.id);
    expect(only(history, "tool_result")).toHaveLength(3);

    // Anthropic's Messages API, served locally: the real @ai-sdk/anthropic code path sends to it.
    const bodies: AnthropicBody[] = [];
    const anthropicServer = http.createServer(async (req, res) => {
      let raw = "";
      for await (const chunk of req) raw += chunk;
      bodies.push(JSON.parse(raw) as AnthropicBody);
      const problem = anthropicProblem(bodies.at(-1)!);
      if (problem) {
        res
          .writeHead(400, { "content-type": "application/json" })
          .end(JSON.stringify({ type: "error", error: { type: "invalid_request_error", message: problem } }));
        return;
      }
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          id: "msg_1",
          type: "message",
          role: "assistant",
          model: "claude-test",
          content: [{ type: "text", text: "## Goal\nRelease 1.2.3." }],
          stop_reason: "end_turn",
          stop_sequence: null,
          usage: { input_tokens: 50, output_tokens: 8 },
        }),
      );
    });
    await new Promise<void>((resolve) => anthropicServer.listen(0, "127.0.0.1", resolve));
    const port = (anthropicServer.address() as AddressInfo).port;
    const anthropic = createAnthropic({ baseURL: `http://127.0.0.1:${port}/v1`, apiKey: "test-key" })("claude-test");
    h.model.load({ replies: [{ match: "Summarise the conversation", text: "## Goal\nRelease 1.2.3." }] });
    try {
      for (const model of [h.env.services.models.resolve("openai-compatible:scripted"), anthropic]) {
        const prepared = await prepareContext({
          events: [...history],
          instructions: "x",
          toolsChars: 0,
          contextWindow: 200,
          turnStartSeq: history.at(-1)!.seq + 1,
          model,
          log: h.agent.log,
          sessionId: session.id,
          signal: new AbortController().signal,
          jobs: ["job-1: npm run dev"],
        });
        expect(prepared.cut).toBe(true);
        const summary = only(await h.events(session.id), "compaction").at(-1)!.payload.summary;
        expect(summary).toContain("## Goal\nRelease 1.2.3.");
        // The latest request survives word for word.
        expect(summary).toContain(`[${h.user.name}] plan the release`);
      }
    } finally {
      await new Promise((resolve) => anthropicServer.close(resolve));
    }

    expect(bodies).toHaveLength(1);
    expect(anthropicProblem(bodies[0]!)).toBeNull();
    const openai = h.model.requests.at(-1)!;
    expect(openai.messages.some((m) => m.role === "tool" || m.tool_calls)).toBe(false);
    for (const text of [JSON.stringify(bodies[0]!.messages), JSON.stringify(openai.messages)]) {
      expect(text).toContain("→ echo");
      expect(text).toContain("echo: version 1.2.3");
      expect(text).toContain("use config.yaml instead"); // the rejected call's feedback
      expect(text).toContain("[in_progress] bump the version"); // the todo list
      expect(text).toContain("job-1: npm run dev"); // running background jobs
      expect(text).toContain("## Next step");
    }
  });
});

type AnthropicBody = {
  messages: Array<{ role: string; content: string | Array<{ type: string }> }>;
  tools?: unknown[];
};

/**
 * Anthropic answers 400 ("Requests which include `tool_use` or `tool_result` blocks must define
 * tools") to tool blocks without tool definitions; Bedrock's Converse API has the same rule for
 * toolUse/toolResult without a toolConfig.
 */
function anthropicProblem(body: AnthropicBody): string | null {
  const blocks = body.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : []));
  const usesTools = blocks.some((b) => b.type === "tool_use" || b.type === "tool_result");
  return usesTools && !body.tools?.length
    ? "Requests which include `tool_use` or `tool_result` blocks must define tools."
    : null;
}
