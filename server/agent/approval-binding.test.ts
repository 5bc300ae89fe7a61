import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgentHarness, only } from "@/server/test/agent-harness";

// A model's tool-call ids are untrusted: an approval is bound to the one call it was asked for (the
// session, the turn, its request's place in the log and a hash of the tool and its input), so a
// model that names a later call with an approved call's id is asked again, in the same turn or the
// next, and whatever else is keyed by the id (results, started calls, output logs) stays apart.

let h: Awaited<ReturnType<typeof createAgentHarness>>;
beforeAll(async () => {
  h = await createAgentHarness();
});
afterAll(() => h.dispose());

const ran = () => h.toolLog.filter((t) => t.tool === "run").map((t) => (t.input as { command: string }).command);

describe("an approval is bound to its call, not to the model's call id", () => {
  it("a later call in the same turn that reuses an approved id asks again", async () => {
    const session = await h.newSession({
      replies: [
        { toolCalls: [{ id: "call_same", name: "run", arguments: { command: "ls" } }] },
        { match: "ran ls", toolCalls: [{ id: "call_same", name: "run", arguments: { command: "rm -rf /workspace" } }] },
        { match: "rm -rf", text: "done" },
      ],
    });
    let events = await h.send(session.id, "list the files");
    const first = only(events, "approval_requested")[0]!;
    await h.caller.approval.respond({ approvalId: first.payload.approvalId, decision: "approve" });
    await h.agent.idle(session.id);
    events = await h.events(session.id);

    expect(ran()).toEqual(["ls"]);
    const requests = only(events, "approval_requested");
    expect(requests).toHaveLength(2);
    expect(requests[1]!.payload.input).toEqual({ command: "rm -rf /workspace" });
    expect(requests[1]!.payload.approvalId).not.toBe(first.payload.approvalId);
    expect(await h.status(session.id)).toBe("waiting_approval");
    // The reused id was replaced: every call of the session has an id of its own.
    const ids = only(events, "tool_call").map((e) => e.payload.toolCallId);
    expect(new Set(ids).size).toBe(ids.length);
    await h.caller.session.cancel({ sessionId: session.id });
  });

  it("a call in the next turn that reuses an approved id asks again", async () => {
    const session = await h.newSession({
      replies: [
        { match: "first", toolCalls: [{ id: "call_same", name: "run", arguments: { command: "ls" } }] },
        { match: "ran ls", text: "listed" },
        { match: "second", toolCalls: [{ id: "call_same", name: "run", arguments: { command: "rm -rf /workspace" } }] },
      ],
    });
    let events = await h.send(session.id, "first");
    await h.caller.approval.respond({
      approvalId: only(events, "approval_requested")[0]!.payload.approvalId,
      decision: "approve",
    });
    await h.agent.idle(session.id);
    events = await h.send(session.id, "second");

    expect(ran()).toEqual(["ls"]);
    expect(only(events, "approval_requested").map((e) => e.payload.input)).toEqual([
      { command: "ls" },
      { command: "rm -rf /workspace" },
    ]);
    expect(await h.status(session.id)).toBe("waiting_approval");
    await h.caller.session.cancel({ sessionId: session.id });
  });

  it("two calls of one step with the same id are two calls, each asked for and answered on its own", async () => {
    const session = await h.newSession({
      replies: [
        {
          toolCalls: [
            { id: "dup", name: "run", arguments: { command: "ls" } },
            { id: "dup", name: "run", arguments: { command: "rm -rf /workspace" } },
          ],
        },
        { match: "", text: "done" },
      ],
    });
    let events = await h.send(session.id, "go");
    const first = only(events, "approval_requested")[0]!;
    expect(first.payload.input).toEqual({ command: "ls" });
    await h.caller.approval.respond({ approvalId: first.payload.approvalId, decision: "approve" });
    await h.agent.idle(session.id);
    events = await h.events(session.id);

    expect(ran()).toEqual(["ls"]);
    const second = only(events, "approval_requested")[1]!;
    expect(second.payload.input).toEqual({ command: "rm -rf /workspace" });
    await h.caller.approval.respond({ approvalId: second.payload.approvalId, decision: "reject" });
    await h.agent.idle(session.id);
    events = await h.events(session.id);
    expect(ran()).toEqual(["ls"]);
    expect(only(events, "tool_result").map((e) => [e.payload.ok, e.payload.llm.slice(0, 31)])).toEqual([
      [true, "ran ls"],
      [false, "The user rejected this run call"],
    ]);
  });

  it("a hostile id (long, with path characters) is replaced before anything is keyed by it", async () => {
    const hostile = `../../${"x".repeat(5000)}/etc/passwd`;
    const session = await h.newSession({
      replies: [
        { toolCalls: [{ id: hostile, name: "echo", arguments: { text: "hi" } }] },
        { match: "echo: hi", text: "done" },
      ],
    });
    const events = await h.send(session.id, "echo");
    const [call] = only(events, "tool_call");
    expect(call!.payload.toolCallId).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    expect(only(events, "tool_result")[0]!.payload).toMatchObject({ toolCallId: call!.payload.toolCallId, ok: true });
  });
});
