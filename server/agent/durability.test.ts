import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgentRuntime } from "@/server/agent/runtime";
import { createAgentStore } from "@/server/services/agent-store";
import { createModelRegistry } from "@/server/agent/providers";
import { createInProcessBus } from "@/server/bus/session-bus";
import fs from "node:fs/promises";
import path from "node:path";
import { setSessionStatus } from "@/server/db/repositories/sessions";
import { bindRequest, createApproval, findApprovalForCall, resolveApproval } from "@/server/db/repositories/approvals";
import { callHash } from "@/server/agent/call-binding";
import { createAgentHarness, only, testTools } from "@/server/test/agent-harness";
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
    store: createAgentStore(services.db),
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
    expect((await h.caller.session.get({ sessionId: session.id })).pendingApprovals.map((a) => a.id)).toEqual([
      approvalId,
    ]);

    await h.caller.approval.respond({ approvalId, decision: "approve" });
    await next.idle(session.id);
    const after = await h.events(session.id);
    expect(only(after, "tool_result")[0]!.payload.llm).toBe("wrote hello.txt");
    expect(only(after, "assistant_message").at(-1)!.payload.text).toBe("Done: hello.txt is written.");
    expect(only(after, "turn_started")).toHaveLength(1);
    expect(after.map((e) => e.seq)).toEqual(after.map((_, i) => i + 1));
  });

  it("binds a request the server stopped before binding when the turn re-enters, and runs its call once answered", async () => {
    const session = await h.newSession("approval");
    await h.caller.session.send({ sessionId: session.id, text: "Write hello.txt" });
    await h.agent.idle(session.id);
    const requested = only(await h.events(session.id), "approval_requested")[0]!;
    // The server stopped after writing the request to the log and before recording its seq on the row.
    await h.env.services.db.approval.update({
      where: { id: requested.payload.approvalId },
      data: { requestSeq: null },
    });
    const { next } = restart();
    await h.caller.approval.respond({ approvalId: requested.payload.approvalId, decision: "approve" });
    await next.idle(session.id);
    const after = await h.events(session.id);
    expect(only(after, "tool_result")[0]!.payload.llm).toBe("wrote hello.txt");
    expect((await findApprovalForCall(h.env.services.db, session.id, requested.payload.toolCallId))?.requestSeq).toBe(
      requested.seq,
    );
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
    await log.append(session.id, "tool_call", {
      turnId: "t-crashed",
      stepId: "t-crashed:1",
      toolCallId: "call_1",
      toolName: "echo",
      input: { text: "before the crash" },
      title: "Echo",
      kind: "read",
    });
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
    expect(only(events, "tool_result")[0]!.payload).toMatchObject({
      toolCallId: "call_1",
      ok: true,
      llm: "echo: before the crash",
    });
    expect(only(events, "turn_started").at(-1)!.payload.resumed).toBe(true);
    expect(only(events, "assistant_message").at(-1)!.payload.text).toBe("Finished after the restart.");
    expect(await h.status(session.id)).toBe("idle");
  });

  /** What a server killed while a command ran leaves: the call approved, started, its line appended, no result. */
  async function cutOffCommand(turnId: string, toolCallId: string) {
    const session = await h.newSession({
      replies: [{ match: "interrupted mid-run", text: "The append was cut off; I checked log.txt." }],
    });
    // The most permissive mode: even here a cut-off command is not run again without a person.
    await h.caller.agent.updateSettings({ projectId: h.project.id, approvalMode: "yolo" });
    const db = h.env.services.db;
    const log = h.agent.log;
    const input = { command: "echo line >> log.txt" };
    await log.append(session.id, "user_message", { text: "Append a line to log.txt" }, h.user.id);
    await log.append(session.id, "turn_started", { turnId, model: "openai-compatible:scripted" });
    await log.append(session.id, "tool_call", {
      turnId,
      stepId: `${turnId}:1`,
      toolCallId,
      toolName: "run",
      input,
      title: "Run echo line >> log.txt",
      kind: "execute",
    });
    const approval = await createApproval(db, {
      sessionId: session.id,
      toolCallId,
      toolName: "run",
      kind: "tool",
      input,
      turnId,
      callHash: callHash("run", input, { commands: [input.command] }),
      plan: null,
    });
    const requested = await log.append(session.id, "approval_requested", {
      approvalId: approval.id,
      toolCallId,
      toolName: "run",
      kind: "tool",
      title: "Run",
      input,
    });
    await bindRequest(db, approval.id, requested.seq);
    await resolveApproval(db, approval.id, { status: "approved", decision: "approve", resolvedById: h.user.id });
    await log.append(
      session.id,
      "approval_resolved",
      { approvalId: approval.id, toolCallId, decision: "approve", by: { id: h.user.id, name: h.user.name } },
      h.user.id,
    );
    await log.append(session.id, "tool_started", { turnId, toolCallId, toolName: "run" });
    const file = path.join((await h.env.services.files.open(h.project.id)).root, "log.txt");
    await fs.writeFile(file, "line\n");
    await setSessionStatus(db, session.id, "running");
    return { session, approvalId: approval.id, file };
  }

  it("asks a person before running a command cut off mid-run again, never reuses the earlier approval, and tells the model", async () => {
    const { session, approvalId, file } = await cutOffCommand("t-cut", "call_cut");
    const { next } = restart();
    expect(await next.recover()).toEqual([session.id]);

    await h.caller.session.resume({ sessionId: session.id });
    await next.idle(session.id);
    expect(await h.status(session.id)).toBe("waiting_approval");
    expect(h.toolLog.filter((e) => e.tool === "run")).toHaveLength(0);
    expect((await findApprovalForCall(h.env.services.db, session.id, "call_cut"))?.status).toBe("pending");
    let events = await h.events(session.id);
    const asked = only(events, "approval_requested").at(-1)!.payload;
    // A new request of its own: the earlier approval stays answered and is not reused.
    expect(asked.approvalId).not.toBe(approvalId);
    expect(asked.reason).toMatch(/interrupted mid-run/);

    await h.caller.approval.respond({ approvalId: asked.approvalId, decision: "reject" });
    await next.idle(session.id);
    events = await h.events(session.id);
    expect(only(events, "tool_result").at(-1)!.payload).toMatchObject({
      toolCallId: "call_cut",
      ok: false,
      errorCode: "INTERRUPTED",
    });
    expect(only(events, "tool_result").at(-1)!.payload.llm).toMatch(/interrupted mid-run/);
    expect(only(events, "assistant_message").at(-1)!.payload.text).toBe("The append was cut off; I checked log.txt.");
    expect(h.toolLog.filter((e) => e.tool === "run")).toHaveLength(0);
    expect(await fs.readFile(file, "utf8")).toBe("line\n");
  });

  it("runs a cut-off command again only once a person approves the re-run", async () => {
    const { session, approvalId } = await cutOffCommand("t-cut-2", "call_cut_2");
    const { next } = restart();
    await next.recover();
    await h.caller.session.resume({ sessionId: session.id });
    await next.idle(session.id);
    expect(h.toolLog.filter((e) => e.tool === "run")).toHaveLength(0);
    const asked = only(await h.events(session.id), "approval_requested").at(-1)!.payload;
    expect(asked.approvalId).not.toBe(approvalId);
    await h.caller.approval.respond({ approvalId: asked.approvalId, decision: "approve" });
    await next.idle(session.id);
    expect(h.toolLog.filter((e) => e.tool === "run")).toHaveLength(1);
    const events = await h.events(session.id);
    const result = only(events, "tool_result").at(-1)!.payload;
    expect(result).toMatchObject({ toolCallId: "call_cut_2", ok: true });
    // The re-run is itself recorded as started before it ran, after the person's new answer.
    const reStarted = only(events, "tool_started").at(-1)!.seq;
    expect(reStarted).toBeGreaterThan(only(events, "approval_resolved").at(-1)!.seq);
    expect(reStarted).toBeLessThan(only(events, "tool_result").at(-1)!.seq);
    expect(result.llm).toMatch(/interrupted mid-run[\s\S]*approved running it again[\s\S]*ran echo line >> log.txt/);
  });

  it("tells the model a cut-off call partly ran when a new message comes instead of a resume", async () => {
    const { session } = await cutOffCommand("t-cut-3", "call_cut_3");
    const { next } = restart();
    await next.recover();
    h.model.load({ replies: [{ text: "Noted: the earlier append may have run." }] });
    await h.caller.session.send({ sessionId: session.id, text: "What happened?" });
    await h.waitFor(async () => only(await h.events(session.id), "turn_finished").length > 1);
    const events = await h.events(session.id);
    const result = only(events, "tool_result").find((e) => e.payload.toolCallId === "call_cut_3")!.payload;
    expect(result.llm).toMatch(/interrupted mid-run/);
    expect(result.llm).not.toMatch(/^Not run/);
    // What the model read for that call in the next turn.
    const toolMessage = h.model.requests
      .at(-1)!
      .messages.find((m) => m.role === "tool" && m.tool_call_id === "call_cut_3");
    expect(JSON.stringify(toolMessage?.content)).toMatch(/interrupted mid-run/);
    expect(h.toolLog.filter((e) => e.tool === "run")).toHaveLength(0);
  });
});
