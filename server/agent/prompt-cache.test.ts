import http from "node:http";
import type { AddressInfo } from "node:net";
import { createAnthropic } from "@ai-sdk/anthropic";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { EventLog } from "@/server/agent/events";
import { runModelStep } from "@/server/agent/step";
import { defineTool } from "@/server/tools/define-tool";
import { ok } from "@/server/tools/result";

// What a step sends to Anthropic, read by a local stand-in of its Messages API: the real
// @ai-sdk/anthropic code turns the step's cache marks into cache_control blocks.

type Body = {
  system?: Array<{ text: string; cache_control?: unknown }>;
  tools?: Array<{ name: string; cache_control?: unknown }>;
  messages: Array<{ role: string; content: Array<{ type: string; cache_control?: unknown }> }>;
};
const bodies: Body[] = [];
let server: http.Server;
let baseURL: string;

beforeAll(async () => {
  server = http.createServer(async (req, res) => {
    let raw = "";
    for await (const chunk of req) raw += chunk;
    bodies.push(JSON.parse(raw) as Body);
    res
      .writeHead(400, { "content-type": "application/json" })
      .end(JSON.stringify({ type: "error", error: { type: "invalid_request_error", message: "seen" } }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const tool = (name: string) =>
  defineTool({
    name,
    kind: "read",
    description: `The ${name} tool.`,
    input: z.object({ text: z.string() }),
    describe: () => name,
    execute: async () => ok("done"),
  });

async function step(modelId: string) {
  const model = createAnthropic({ baseURL, apiKey: "test-key" })("claude-test");
  const log = { flush: async () => {} } as unknown as EventLog;
  return runModelStep({
    log,
    sessionId: "s",
    turnId: "t",
    stepId: "t:1",
    modelId,
    basedOnSeq: 1,
    model,
    instructions: "You are the agent.",
    messages: [
      { role: "user", content: "first" },
      { role: "assistant", content: "ok" },
      { role: "user", content: "second" },
    ],
    tools: { echo: tool("echo"), read: tool("read") },
    signal: new AbortController().signal,
    maxRetries: 0,
    usedCallIds: new Set(),
  });
}

describe("Anthropic prompt caching", () => {
  it("marks the last tool, the system prompt and the last message as cache breakpoints", async () => {
    await step("anthropic:claude-test");
    const body = bodies.at(-1)!;
    const ephemeral = { type: "ephemeral" };
    expect(body.system).toEqual([{ type: "text", text: "You are the agent.", cache_control: ephemeral }]);
    expect(body.tools!.map((t) => t.cache_control)).toEqual([undefined, ephemeral]);
    const marked = body.messages.flatMap((m) => m.content.filter((c) => c.cache_control));
    expect(marked).toHaveLength(1);
    expect(body.messages.at(-1)!.content.at(-1)!.cache_control).toEqual(ephemeral);
  });

  it("marks nothing for a model of another provider, even one spoken to in Anthropic's protocol", async () => {
    await step("openai-compatible:claude-test");
    expect(JSON.stringify(bodies.at(-1))).not.toContain("cache_control");
  });
});
