import { describe, expect, it } from "vitest";
import { foldModelMessages, PRUNED_OUTPUT, SUMMARY_PREFIX } from "./model-transcript";
import type { SessionEvent } from "./session-events";

let seq = 0;
const ev = (type: string, payload: Record<string, unknown>): SessionEvent =>
  ({ sessionId: "s", seq: ++seq, type, payload, authorId: null, createdAt: new Date(0) }) as SessionEvent;
const t = { turnId: "t" };

describe("foldModelMessages", () => {
  it("folds steps into assistant messages followed by their tool results", () => {
    seq = 0;
    const events = [
      ev("user_message", { text: "hi" }),
      ev("turn_started", { ...t, model: "m", resumed: false }),
      ev("assistant_delta", { ...t, stepId: "1", text: "Look" }),
      ev("tool_call", {
        ...t,
        stepId: "1",
        toolCallId: "a",
        toolName: "read",
        input: { p: 1 },
        title: "",
        kind: "read",
        basedOnSeq: 2,
      }),
      ev("assistant_message", { ...t, stepId: "1", text: "Looking", basedOnSeq: 2 }),
      ev("tool_result", { ...t, toolCallId: "a", toolName: "read", ok: false, llm: "nope", durationMs: 1 }),
      ev("assistant_message", { ...t, stepId: "2", text: "Done", basedOnSeq: 6 }),
    ];
    expect(foldModelMessages(events)).toEqual([
      { role: "user", content: "hi" },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Looking" },
          { type: "tool-call", toolCallId: "a", toolName: "read", input: { p: 1 } },
        ],
      },
      {
        role: "tool",
        content: [
          { type: "tool-result", toolCallId: "a", toolName: "read", output: { type: "error-text", value: "nope" } },
        ],
      },
      { role: "assistant", content: [{ type: "text", text: "Done" }] },
    ]);
  });

  it("leaves out calls without results and places late messages after the step they missed", () => {
    seq = 0;
    const events = [
      ev("user_message", { text: "go" }),
      ev("assistant_delta", { ...t, stepId: "1", text: "Sure" }),
      ev("user_message", { text: "and also" }),
      ev("tool_call", {
        ...t,
        stepId: "1",
        toolCallId: "a",
        toolName: "x",
        input: {},
        title: "",
        kind: "read",
        basedOnSeq: 1,
      }),
      ev("tool_call", {
        ...t,
        stepId: "1",
        toolCallId: "b",
        toolName: "x",
        input: {},
        title: "",
        kind: "read",
        basedOnSeq: 1,
      }),
      ev("user_message", { text: "one more" }),
      ev("assistant_message", { ...t, stepId: "1", text: "Sure", basedOnSeq: 1 }),
      ev("tool_result", { ...t, toolCallId: "a", toolName: "x", ok: true, llm: "A", durationMs: 1 }),
    ];
    const messages = foldModelMessages(events);
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "user", "user"]);
    expect(messages[1]!.content).toHaveLength(2); // text + the answered call only
    expect(messages.slice(3).map((m) => m.content)).toEqual(["and also", "one more"]);
  });

  it("tells the model about a pull request someone opened from the session's project, in its place", () => {
    seq = 0;
    const events = [
      ev("user_message", { text: "ship it" }),
      ev("assistant_message", { ...t, stepId: "1", text: "Committed.", basedOnSeq: 1 }),
      ev("pull_request_opened", {
        url: "https://github.com/acme/shop/pull/7",
        number: 7,
        title: "Ship",
        head: "ship",
        base: "main",
        by: { id: "u", name: "Ada" },
      }),
    ];
    expect(foldModelMessages(events)).toEqual([
      { role: "user", content: "ship it" },
      { role: "assistant", content: [{ type: "text", text: "Committed." }] },
      {
        role: "user",
        content: "[Ada opened pull request #7 from ship into main: https://github.com/acme/shop/pull/7]",
      },
    ]);
  });

  it("replaces compacted events by the summary and prunes old outputs", () => {
    seq = 0;
    const events = [
      ev("user_message", { text: "old" }),
      ev("assistant_message", { ...t, stepId: "1", text: "old answer" }),
      ev("compaction", { summary: "S", upToSeq: 2, estimatedTokens: 1, contextWindow: 1 }),
      ev("user_message", { text: "new" }),
      ev("tool_call", { ...t, stepId: "2", toolCallId: "a", toolName: "x", input: {}, title: "", kind: "read" }),
      ev("tool_result", { ...t, toolCallId: "a", toolName: "x", ok: true, llm: "big output", durationMs: 1 }),
    ];
    const messages = foldModelMessages(events, { pruneBeforeSeq: 7 });
    expect(messages[0]).toEqual({ role: "user", content: `${SUMMARY_PREFIX}S` });
    expect(JSON.stringify(messages)).not.toContain("old answer");
    expect(JSON.stringify(messages)).toContain(PRUNED_OUTPUT);
  });
});
