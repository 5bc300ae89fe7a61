import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgentRuntime } from "@/server/agent/runtime";
import { createModelRegistry } from "@/server/agent/providers";
import { createInProcessBus } from "@/server/bus/session-bus";
import { setSessionStatus } from "@/server/db/repositories/sessions";
import { createAgentHarness, only, testTools } from "./test-harness";
import { testSandbox } from "@/server/test/sandbox";

// A restart, in one process: a second runtime on the same database takes over, as a new server
// process would. (The real kill -9 of a server process is in server/restart.test.ts.)

let h: Awaited<ReturnType<typeof createAgentHarness>>;
beforeAll(async () => {
  h = await createAgentHarness();
});
afterAll(() => h.dispose());

function restart() {
  const services = h.env.services;
  const next = createAgentRuntime({
    db: services.db,
    bus: createInProcessBus(),
    models: createModelRegistry(services.config.models),
    openWorkspace: (projectId) => services.files.open(projectId),
    baseTools: testTools(h.toolLog),
    sandbox: testSandbox("none"),
    maxRetries: 0,
  });
  const previous = services.agent;
  services.agent = next;
  h.agent = next;
  return { next, previous };
}

describe("durable sessions", () => {
  it("keeps a pending approval across a restart; answering it continues the turn", async () => {
    const session = await h.newSession("approval");
    const events = await h.send(session.id, "Write hello.txt");
    const approvalId = only(events, "approval_requested")[0]!.payload.approvalId;
    const { next } = restart();
    expect(await next.recover()).toEqual([]);
    expect(await h.status(session.id)).toBe("waiting_approval");
    expect((await h.caller.session.get({ sessionId: session.id })).pendingApprovals.map((a) => a.id)).toEqual([approvalId]);

    await h.caller.approval.respond({ approvalId, decision: "approve" });
    await next.idle(session.id);
    const after = await h.events(session.id);
    expect(only(after, "tool_result")[0]!.payload.llm).toBe("wrote hello.txt");
    expect(only(after, "assistant_message").at(-1)!.payload.text).toBe("Done: hello.txt is written.");
    expect(only(after, "turn_started")).toHaveLength(1);
    expect(after.map((e) => e.seq)).toEqual(after.map((_, i) => i + 1));
  });

  it("marks a turn cut off by a crash interrupted, and resumes it from the log", async () => {
    const session = await h.newSession({
      replies: [
        { toolCalls: [{ id: "call_1", name: "echo", arguments: { text: "before the crash" } }] },
        { match: "echo: before the crash", text: "Finished after the restart." },
      ],
    });
    // What a crash leaves: the turn started, the model asked for a tool, nothing ran, status running.
    await h.caller.agent.updateSettings({ projectId: h.project.id, approvalMode: "ask" });
    const log = h.agent.log;
    await log.append(session.id, "user_message", { text: "Echo something" }, h.user.id);
    await log.append(session.id, "turn_started", { turnId: "t-crashed", model: "openai-compatible:scripted" });
    await log.append(session.id, "tool_call", { turnId: "t-crashed", stepId: "t-crashed:1", toolCallId: "call_1", toolName: "echo", input: { text: "before the crash" }, title: "Echo", kind: "read" });
    await setSessionStatus(h.env.services.db, session.id, "running");
    h.model.load({ replies: [{ match: "echo: before the crash", text: "Finished after the restart." }] });

    const { next } = restart();
    expect(await next.recover()).toEqual([session.id]);
    expect(await h.status(session.id)).toBe("interrupted");
    let events = await h.events(session.id);
    expect(only(events, "turn_finished").at(-1)!.payload).toMatchObject({ turnId: "t-crashed", reason: "interrupted" });

    await h.caller.session.resume({ sessionId: session.id });
    await next.idle(session.id);
    events = await h.events(session.id);
    expect(only(events, "tool_result")[0]!.payload).toMatchObject({ toolCallId: "call_1", ok: true, llm: "echo: before the crash" });
    expect(only(events, "turn_started").at(-1)!.payload.resumed).toBe(true);
    expect(only(events, "assistant_message").at(-1)!.payload.text).toBe("Finished after the restart.");
    expect(await h.status(session.id)).toBe("idle");
  });
});
