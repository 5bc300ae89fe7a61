import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { foldTranscript } from "@/lib/session-transcript";
import { createAgentHarness, only, typesOf } from "@/server/test/agent-harness";

let h: Awaited<ReturnType<typeof createAgentHarness>>;
beforeAll(async () => {
  h = await createAgentHarness();
});
afterAll(() => h.dispose());

const lastRequest = () => h.model.requests.at(-1)!;
const toolMessages = (request = lastRequest()) => request.messages.filter((m) => m.role === "tool");

describe("agent turn against the scripted model server", () => {
  it("streams plain text into the log and finishes idle", async () => {
    const session = await h.newSession("plain-text");
    const events = await h.send(session.id, "Say hello");
    expect(typesOf(events)).toEqual(
      expect.arrayContaining([
        "user_message",
        "turn_started",
        "assistant_delta",
        "assistant_message",
        "usage",
        "turn_finished",
      ]),
    );
    expect(only(events, "assistant_message")[0]!.payload.text).toBe("Hello from the scripted model. All good here.");
    expect(
      only(events, "assistant_delta")
        .map((e) => e.payload.text)
        .join(""),
    ).toBe("Hello from the scripted model. All good here.");
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(only(events, "usage")[0]!.payload.step).toMatchObject({ inputTokens: 120, outputTokens: 9 });
    expect(only(events, "turn_finished")[0]!.payload.reason).toBe("completed");
    expect(await h.status(session.id)).toBe("idle");
    expect(foldTranscript(events).items.map((i) => i.kind)).toEqual(["user", "assistant"]);
  });

  it("runs one tool call and sends its result back to the model", async () => {
    const session = await h.newSession("one-tool-call");
    const events = await h.send(session.id, "Use the echo tool");
    const call = only(events, "tool_call")[0]!;
    expect(call.payload).toMatchObject({ toolName: "echo", input: { text: "hi" }, title: "Echo hi", kind: "read" });
    expect(only(events, "tool_result")[0]!.payload).toMatchObject({
      toolCallId: call.payload.toolCallId,
      ok: true,
      llm: "echo: hi",
    });
    expect(toolMessages()[0]).toMatchObject({ role: "tool", tool_call_id: "call_echo", content: "echo: hi" });
    expect(only(events, "assistant_message").map((e) => e.payload.text)).toEqual([
      "Let me look. ",
      "The tool said hi.",
    ]);
    expect(only(events, "usage")).toHaveLength(2);
    const transcript = foldTranscript(events);
    expect(transcript.items.find((i) => i.kind === "tool")).toMatchObject({
      status: "done",
      result: { llm: "echo: hi" },
    });
  });

  it("records a call with the seq its request was built from, whatever fields the model puts in the tool's input", async () => {
    const session = await h.newSession({
      replies: [
        {
          text: "Echoing. ",
          toolCalls: [{ id: "call_odd", name: "echo", arguments: { text: "hi", basedOnSeq: "not a number" } }],
        },
        { text: "Done." },
      ],
    });
    const events = await h.send(session.id, "Echo with an odd field");
    const call = only(events, "tool_call")[0]!;
    const message = only(events, "assistant_message")[0]!;
    expect(call.payload.basedOnSeq).toBe(message.payload.basedOnSeq);
    expect(call.payload.basedOnSeq).toBeGreaterThanOrEqual(only(events, "user_message")[0]!.seq);
    expect(call.payload.input).toEqual({ text: "hi", basedOnSeq: "not a number" });
    expect(only(events, "turn_finished")[0]!.payload.reason).toBe("completed");
  });

  it("runs several calls of one step: reads in parallel, changes in order", async () => {
    const session = await h.newSession("parallel-tool-calls");
    await h.caller.agent.updateSettings({ projectId: h.project.id, approvalMode: "auto-edit" });
    const events = await h.send(session.id, "Read and write");
    await h.caller.agent.updateSettings({ projectId: h.project.id, approvalMode: "ask" });
    const reads = h.toolLog.filter((t) => t.tool === "slow_read");
    expect(reads).toHaveLength(3);
    expect(Math.max(...reads.map((r) => r.start))).toBeLessThan(Math.min(...reads.map((r) => r.end)));
    const writes = h.toolLog.filter((t) => t.tool === "write");
    expect(writes.map((w) => (w.input as { path: string }).path)).toEqual(["one.txt", "two.txt"]);
    expect(writes[1]!.start).toBeGreaterThanOrEqual(writes[0]!.end);
    expect(only(events, "tool_result").map((e) => e.payload.toolCallId)).toEqual([
      "call_a",
      "call_b",
      "call_c",
      "call_w1",
      "call_w2",
    ]);
    expect(toolMessages()).toHaveLength(5);
    expect(only(events, "turn_finished")[0]!.payload.reason).toBe("completed");
  });

  it("waits for approval, then continues the turn when approved", async () => {
    const session = await h.newSession("approval");
    let events = await h.send(session.id, "Write hello.txt");
    expect(await h.status(session.id)).toBe("waiting_approval");
    const requested = only(events, "approval_requested")[0]!;
    expect(requested.payload).toMatchObject({ toolName: "write", kind: "tool", title: "Write hello.txt" });
    expect(h.toolLog).toHaveLength(0);
    expect(foldTranscript(events).pending).toEqual([requested.payload.approvalId]);

    await h.caller.approval.respond({ approvalId: requested.payload.approvalId, decision: "approve" });
    await h.agent.idle(session.id);
    events = await h.events(session.id);
    expect(only(events, "approval_resolved")[0]!.payload).toMatchObject({ decision: "approve", by: { id: h.user.id } });
    expect(only(events, "tool_result")[0]!.payload).toMatchObject({ ok: true, llm: "wrote hello.txt" });
    expect(only(events, "assistant_message").at(-1)!.payload.text).toBe("Done: hello.txt is written.");
    expect(only(events, "turn_started")).toHaveLength(1);
    expect(await h.status(session.id)).toBe("idle");
    await expect(
      h.caller.approval.respond({ approvalId: requested.payload.approvalId, decision: "approve" }),
    ).rejects.toMatchObject({ code: "CONFLICT" });
  });

  it("approve always adds a session rule, so the same tool no longer asks", async () => {
    const session = await h.newSession({
      replies: [
        { toolCalls: [{ name: "run", arguments: { command: "npm test" } }] },
        {
          match: "ran npm test",
          toolCalls: [{ name: "run", arguments: { command: "npm test -- --watch=false && npm test" } }],
        },
        { match: "ran npm test", toolCalls: [{ name: "run", arguments: { command: "npm test; rm -rf build" } }] },
      ],
    });
    let events = await h.send(session.id, "Run the tests");
    const first = only(events, "approval_requested")[0]!;
    await h.caller.approval.respond({ approvalId: first.payload.approvalId, decision: "approve_always" });
    await h.agent.idle(session.id);
    events = await h.events(session.id);
    // The compound command made only of `npm test` parts ran without asking; `rm` asks.
    expect(only(events, "tool_result").map((e) => e.payload.llm)).toEqual([
      "ran npm test",
      "ran npm test -- --watch=false && npm test",
    ]);
    expect(only(events, "approval_requested")).toHaveLength(2);
    expect(only(events, "approval_requested")[1]!.payload.input).toEqual({ command: "npm test; rm -rf build" });
    await h.caller.session.cancel({ sessionId: session.id });
    expect(await h.status(session.id)).toBe("idle");
  });

  it("sends rejection feedback back to the model as the tool's result", async () => {
    const session = await h.newSession("reject-with-feedback");
    let events = await h.send(session.id, "Write a config");
    const requested = only(events, "approval_requested")[0]!;
    await h.caller.approval.respond({
      approvalId: requested.payload.approvalId,
      decision: "reject",
      feedback: "use config.yaml instead",
    });
    await h.agent.idle(session.id);
    events = await h.events(session.id);
    expect(h.toolLog).toHaveLength(0);
    expect(only(events, "tool_result")[0]!.payload).toMatchObject({ ok: false, errorCode: "REJECTED" });
    expect(String(toolMessages()[0]!.content)).toContain("use config.yaml instead");
    expect(only(events, "assistant_message").at(-1)!.payload.text).toBe("Understood, I will use config.yaml.");
    expect(foldTranscript(events).items.find((i) => i.kind === "tool")).toMatchObject({
      status: "rejected",
      feedback: "use config.yaml instead",
    });
  });

  it("returns invalid arguments to the model, which corrects the call", async () => {
    const session = await h.newSession("invalid-arguments");
    const events = await h.send(session.id, "Echo something");
    const results = only(events, "tool_result");
    expect(results[0]!.payload).toMatchObject({ ok: false, errorCode: "INVALID_INPUT" });
    expect(results[0]!.payload.llm).toMatch(/text/);
    expect(results[1]!.payload).toMatchObject({ ok: true, llm: "echo: fixed" });
    expect(only(events, "turn_finished")[0]!.payload.reason).toBe("completed");
  });

  it("answers a call to an unknown tool with an error the model can act on", async () => {
    const session = await h.newSession("unknown-tool");
    const events = await h.send(session.id, "Go to mars");
    expect(only(events, "tool_call")[0]!.payload).toMatchObject({ toolName: "teleport", kind: "unknown" });
    const result = only(events, "tool_result")[0]!.payload;
    expect(result).toMatchObject({ ok: false, errorCode: "TOOL_NOT_FOUND" });
    expect(result.llm).toMatch(/Available tools: .*echo/);
    expect(only(events, "assistant_message").at(-1)!.payload.text).toMatch(/does not exist/);
  });

  it("retries a 429 (honouring Retry-After) and succeeds", async () => {
    const session = await h.newSession("rate-limited");
    const events = await h.send(session.id, "Hello?");
    expect(h.model.requests).toHaveLength(2);
    expect(only(events, "error")).toHaveLength(0);
    expect(only(events, "assistant_message")[0]!.payload.text).toBe("Made it after a retry.");
  });

  it("tells the session about each retry of an unavailable model: the attempt and the wait", async () => {
    const unavailable = {
      status: 503,
      headers: { "retry-after": "0" },
      body: '{"error":{"message":"Service warming up"}}',
    };
    const session = await h.newSession({ replies: [unavailable, unavailable, { text: "Up at last." }] });
    const events = await h.send(session.id, "Hello?");
    expect(h.model.requests).toHaveLength(3);
    const retries = only(events, "model_retry").map((e) => e.payload);
    expect(retries).toMatchObject([
      { attempt: 2, attempts: 3, delayMs: 0 },
      { attempt: 3, attempts: 3, delayMs: 0 },
    ]);
    expect(retries[0]!.message).toMatch(/Service warming up|Service Unavailable/);
    const notices = foldTranscript(events).items.filter((item) => item.kind === "notice");
    expect(notices.map((n) => n.kind === "notice" && n.text)).toEqual([
      expect.stringMatching(/^The model did not answer \(.+\)\. Trying again in 0 ms: attempt 2 of 3\.$/),
      expect.stringMatching(/attempt 3 of 3\.$/),
    ]);
    expect(only(events, "assistant_message")[0]!.payload.text).toBe("Up at last.");
  });

  it("reports a rate limit that outlasts the retries with an actionable message", async () => {
    const limited = {
      status: 429,
      headers: { "retry-after": "0" },
      body: '{"error":{"message":"Rate limit reached"}}',
    };
    const session = await h.newSession({ replies: [limited, limited, limited, limited, limited] });
    const events = await h.send(session.id, "Hello?");
    expect(h.model.requests).toHaveLength(3); // the first try and 2 retries (maxRetries in tests)
    expect(only(events, "error")[0]!.payload).toMatchObject({ code: "rate_limited" });
    expect(only(events, "error")[0]!.payload.message).toMatch(/rate limiting.*Wait a minute/);
    expect(await h.status(session.id)).toBe("failed");
  });

  it("turns a bad API key and an unknown model into clear errors", async () => {
    let session = await h.newSession({ replies: [{ status: 401, body: '{"error":{"message":"Incorrect API key"}}' }] });
    let events = await h.send(session.id, "Hi");
    expect(only(events, "error")[0]!.payload).toMatchObject({ code: "auth" });
    expect(only(events, "error")[0]!.payload.message).toMatch(/TANDEM_OPENAI_COMPATIBLE_API_KEY/);
    session = await h.newSession({
      replies: [{ status: 404, body: '{"error":{"message":"The model `scripted` does not exist"}}' }],
    });
    events = await h.send(session.id, "Hi");
    expect(only(events, "error")[0]!.payload).toMatchObject({ code: "unknown_model" });
    session = await h.newSession({
      replies: [{ status: 400, body: '{"error":{"message":"This model\'s maximum context length is 8192 tokens"}}' }],
    });
    events = await h.send(session.id, "Hi");
    expect(only(events, "error")[0]!.payload).toMatchObject({ code: "context_too_long" });
  });

  it("records an error when the stream is cut off, and the session stays usable", async () => {
    const session = await h.newSession("stream-cut");
    let events = await h.send(session.id, "Tell me a story");
    const error = only(events, "error")[0]!;
    expect(error.payload.code).toMatch(/stream_interrupted|provider_unavailable|internal/);
    expect(await h.status(session.id)).toBe("failed");
    expect(only(events, "turn_finished")[0]!.payload.reason).toBe("error");
    events = await h.send(session.id, "Try again");
    expect(only(events, "assistant_message").at(-1)!.payload.text).toBe("Second try works.");
    expect(await h.status(session.id)).toBe("idle");
  });

  it("cancels mid-stream: the provider request is aborted and the session is idle", async () => {
    const session = await h.newSession("cancel");
    await h.caller.session.send({ sessionId: session.id, text: "Think" });
    await h.waitFor(
      async () =>
        (await h.events(session.id)).some((e) => e.type === "assistant_delta") ||
        h.agent.log.pending(session.id) !== null,
    );
    await h.caller.session.cancel({ sessionId: session.id });
    const events = await h.events(session.id);
    expect(only(events, "turn_finished")[0]!.payload.reason).toBe("cancelled");
    expect(await h.status(session.id)).toBe("idle");
    expect(foldTranscript(events).items.at(-1)).toMatchObject({ kind: "notice", text: "Stopped." });
  });

  it("warns a turn that repeats the same call with the same result, then stops it at twice the threshold", async () => {
    const session = await h.newSession("loop-guard");
    const events = await h.send(session.id, "Loop");
    const finished = only(events, "turn_finished")[0]!.payload;
    expect(finished.reason).toBe("loop_guard");
    expect(finished.message).toMatch(/echo 6 times in a row with the same arguments and the same result/);
    const results = only(events, "tool_result").map((e) => e.payload.llm);
    expect(results.slice(0, 2)).toEqual(["echo: again", "echo: again"]);
    expect(results[2]).toMatch(/^echo: again\n\n\[Loop guard\] echo has now run 3 times in a row.*stops at 6/s);
    expect(h.toolLog).toHaveLength(6);
    expect(h.model.unused()).toHaveLength(1);
  });

  it("lets a verify loop run to the end: the same test command with edits between", async () => {
    const test = { name: "run", arguments: { command: "npm test" } };
    const edit = (n: number) => ({ name: "write", arguments: { path: "fix.txt", content: `try ${n}` } });
    const session = await h.newSession({
      replies: [
        { toolCalls: [test] },
        { toolCalls: [edit(1)] },
        { toolCalls: [test] },
        { toolCalls: [edit(2)] },
        { toolCalls: [test] },
        { toolCalls: [edit(3)] },
        { toolCalls: [test] },
        { text: "Fixed and verified." },
      ],
    });
    await h.caller.agent.updateSettings({ projectId: h.project.id, approvalMode: "yolo" });
    const events = await h.send(session.id, "Fix the tests");
    await h.caller.agent.updateSettings({ projectId: h.project.id, approvalMode: "ask" });
    expect(only(events, "turn_finished")[0]!.payload.reason).toBe("completed");
    expect(only(events, "tool_result").every((e) => !e.payload.llm.includes("[Loop guard]"))).toBe(true);
    expect(only(events, "assistant_message").at(-1)!.payload.text).toBe("Fixed and verified.");
  });

  it("lets a turn read one file again after each edit", async () => {
    const read = { name: "echo", arguments: { text: "app.ts" } };
    const edit = (n: number) => ({ name: "write", arguments: { path: "app.ts", content: `v${n}` } });
    const session = await h.newSession({
      replies: [
        { toolCalls: [read] },
        { toolCalls: [edit(1)] },
        { toolCalls: [read] },
        { toolCalls: [edit(2)] },
        { toolCalls: [read] },
        { text: "Read it three times." },
      ],
    });
    await h.caller.agent.updateSettings({ projectId: h.project.id, approvalMode: "auto-edit" });
    const events = await h.send(session.id, "Edit and re-read");
    await h.caller.agent.updateSettings({ projectId: h.project.id, approvalMode: "ask" });
    expect(only(events, "turn_finished")[0]!.payload.reason).toBe("completed");
    expect(h.toolLog.filter((t) => t.tool === "echo")).toHaveLength(3);
  });

  it("asks people a question and hands the answer, with who gave it, to the model", async () => {
    const session = await h.newSession("ask-user");
    let events = await h.send(session.id, "Set up a database");
    const asked = only(events, "approval_requested")[0]!.payload;
    expect(asked).toMatchObject({ kind: "question", question: "Which database?", options: ["Postgres", "SQLite"] });
    expect(await h.status(session.id)).toBe("waiting_approval");
    await expect(
      h.caller.approval.respond({ approvalId: asked.approvalId, decision: "approve" }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await h.caller.approval.respond({ approvalId: asked.approvalId, decision: "approve", answer: "Postgres" });
    await h.agent.idle(session.id);
    events = await h.events(session.id);
    expect(String(toolMessages()[0]!.content)).toBe(`${h.user.name} answered: Postgres`);
    expect(only(events, "assistant_message").at(-1)!.payload.text).toBe("Postgres it is.");
    expect(foldTranscript(events).items.find((i) => i.kind === "question")).toMatchObject({
      answer: "Postgres",
      by: { id: h.user.id },
    });
  });

  it("picks up a message sent while the model is answering", async () => {
    const session = await h.newSession({
      replies: [
        { text: "one two three four five six", delayMs: 30 },
        { match: "also this", text: "Handled the follow-up." },
      ],
    });
    await h.caller.session.send({ sessionId: session.id, text: "First" });
    await h.waitFor(() => h.model.requests.length === 1);
    await h.caller.session.send({ sessionId: session.id, text: "also this" });
    await h.agent.idle(session.id);
    await h.waitFor(async () => (await h.status(session.id)) === "idle" && !h.agent.isRunning(session.id));
    const events = await h.events(session.id);
    expect(only(events, "assistant_message").map((e) => e.payload.text)).toEqual([
      "one two three four five six",
      "Handled the follow-up.",
    ]);
  });
});
