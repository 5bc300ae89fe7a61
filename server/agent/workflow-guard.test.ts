import fs from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { foldTranscript } from "@/lib/session-transcript";
import { createAgentHarness, only } from "@/server/test/agent-harness";

// A workflow is commands the agent can write itself (.tandem/workflows/x.yaml, with the write tool)
// and then run: its `run` steps meet the deny rules and the destructive-command guard as a shell
// command does, in yolo mode and after an "approve always" on another workflow; "approve always"
// holds for the workflow's content, so an edited workflow asks again; the approval request lists
// every command; and what runs is vetted again when it runs (command-gate.ts).

let h: Awaited<ReturnType<typeof createAgentHarness>>;
let root: string;
beforeAll(async () => {
  h = await createAgentHarness({ extensions: {} });
  root = (await h.env.services.files.open(h.project.id)).root;
  await fs.mkdir(path.join(root, ".tandem/workflows"), { recursive: true });
});
afterAll(() => h.dispose());
beforeEach(async () => {
  await fs.rm(path.join(root, "pwned"), { force: true });
  await h.caller.agent.updateSettings({ projectId: h.project.id, approvalMode: "ask", allowRules: [], denyRules: [] });
});

const pwned = () =>
  fs.access(path.join(root, "pwned")).then(
    () => true,
    () => false,
  );

/** The agent writes a workflow with the write tool, then runs it. */
function writeThenRun(name: string, steps: string[], marker: string) {
  const yaml = ["steps:", ...steps.flatMap((run, i) => [`  - id: s${i}`, `    run: ${run}`])].join("\n");
  return [
    {
      match: marker,
      toolCalls: [{ name: "write", arguments: { path: `.tandem/workflows/${name}.yaml`, content: yaml } }],
    },
    { match: `wrote .tandem/workflows/${name}.yaml`, toolCalls: [{ name: "workflow", arguments: { workflow: name } }] },
  ];
}

describe("workflows meet the guard and the deny rules", () => {
  it("in yolo mode, a workflow the agent wrote with rm -rf steps asks, listing its commands, and does not run", async () => {
    await h.caller.agent.updateSettings({ projectId: h.project.id, approvalMode: "yolo" });
    const session = await h.newSession({
      replies: writeThenRun("wipe", ["echo hello", "rm -rf src && touch pwned"], "clean up"),
    });
    const events = await h.send(session.id, "clean up");

    const asked = only(events, "approval_requested").at(-1)!.payload;
    expect(asked.toolName).toBe("workflow");
    expect(asked.reason).toMatch(/Recursive delete/);
    expect(asked.commands).toEqual(["echo hello", "rm -rf src && touch pwned"]);
    // What the approval card shows: every command, beside the guard's reason.
    const card = foldTranscript(events).items.find((i) => i.kind === "tool" && i.toolName === "workflow");
    expect(card).toMatchObject({
      status: "awaiting_approval",
      approvalCommands: ["echo hello", "rm -rf src && touch pwned"],
      approvalReason: expect.stringMatching(/Recursive delete/),
    });
    expect(await h.status(session.id)).toBe("waiting_approval");
    expect(await pwned()).toBe(false);
    await h.caller.session.cancel({ sessionId: session.id });
  });

  it("after one approve always on a workflow, another workflow with rm -rf still asks", async () => {
    const session = await h.newSession({
      replies: [
        ...writeThenRun("build", ["echo building"], "build it"),
        { match: "Workflow build finished", text: "built" },
        ...writeThenRun("wipe2", ["rm -rf src && touch pwned"], "clean up"),
      ],
    });
    await h.caller.agent.updateSettings({ projectId: h.project.id, approvalMode: "auto-edit" });
    let events = await h.send(session.id, "build it");
    const first = only(events, "approval_requested").at(-1)!.payload;
    await h.caller.approval.respond({ approvalId: first.approvalId, decision: "approve_always" });
    await h.agent.idle(session.id);

    events = await h.send(session.id, "clean up");
    const asked = only(events, "approval_requested").at(-1)!.payload;
    expect(asked.approvalId).not.toBe(first.approvalId);
    expect(asked.commands).toEqual(["rm -rf src && touch pwned"]);
    expect(await pwned()).toBe(false);
    await h.caller.session.cancel({ sessionId: session.id });
  });

  it("approve always holds for the workflow's content: the same workflow edited asks again", async () => {
    const session = await h.newSession({
      replies: [
        ...writeThenRun("tidy", ["echo tidy"], "tidy once"),
        { match: "Workflow tidy finished", text: "tidied" },
        ...writeThenRun("tidy", ["echo tidy", "touch pwned"], "tidy twice"),
      ],
    });
    await h.caller.agent.updateSettings({ projectId: h.project.id, approvalMode: "auto-edit" });
    let events = await h.send(session.id, "tidy once");
    await h.caller.approval.respond({
      approvalId: only(events, "approval_requested").at(-1)!.payload.approvalId,
      decision: "approve_always",
    });
    await h.agent.idle(session.id);
    expect(only(await h.events(session.id), "tool_result").at(-1)!.payload).toMatchObject({
      toolName: "workflow",
      ok: true,
    });

    events = await h.send(session.id, "tidy twice");
    const requests = only(events, "approval_requested");
    expect(requests).toHaveLength(2);
    expect(requests[1]!.payload.commands).toEqual(["echo tidy", "touch pwned"]);
    expect(await pwned()).toBe(false);
    await h.caller.session.cancel({ sessionId: session.id });
  });

  it("a deny rule on rm refuses a workflow whose step runs rm, even in yolo mode", async () => {
    await h.caller.agent.updateSettings({
      projectId: h.project.id,
      approvalMode: "yolo",
      denyRules: [{ tool: "shell", commandPrefix: "rm" }],
    });
    const session = await h.newSession({
      replies: [...writeThenRun("wipe3", ["sudo rm -f x; touch pwned"], "go"), { match: "DENIED", text: "refused" }],
    });
    const events = await h.send(session.id, "go");
    expect(only(events, "approval_requested")).toHaveLength(0);
    expect(only(events, "tool_result").at(-1)!.payload).toMatchObject({
      toolName: "workflow",
      ok: false,
      errorCode: "DENIED",
    });
    expect(await pwned()).toBe(false);
  });

  it("a destructive step built from an earlier step's output is refused when it runs, even after approval", async () => {
    await h.caller.agent.updateSettings({ projectId: h.project.id, approvalMode: "yolo" });
    await fs.mkdir(path.join(root, "precious"), { recursive: true });
    const session = await h.newSession({
      replies: [
        ...writeThenRun("sneak", ["echo precious", "rm -rf {{ steps.s0.output }} && touch pwned"], "go"),
        { match: "Refused", text: "stopped" },
      ],
    });
    let events = await h.send(session.id, "go");
    const asked = only(events, "approval_requested").at(-1)!.payload;
    expect(asked.commands).toEqual(["echo precious", "rm -rf {{ steps.s0.output }} && touch pwned"]);
    await h.caller.approval.respond({ approvalId: asked.approvalId, decision: "approve" });
    await h.agent.idle(session.id);
    events = await h.events(session.id);
    const result = only(events, "tool_result").at(-1)!.payload;
    expect(result).toMatchObject({ toolName: "workflow", ok: false });
    expect(result.llm).toMatch(/Refused `rm -rf 'precious' && touch pwned`: Recursive delete/);
    expect(await pwned()).toBe(false);
    await fs.access(path.join(root, "precious"));
  });
});

describe("discovery commands meet the guard and the deny rules", () => {
  it("a discovery command with rm -rf, or one a deny rule forbids, does not run, and the status says why", async () => {
    const discover = `rm -rf src; touch pwned; echo '[{"name":"hello","description":"hi"}]'`;
    await h.caller.extensions.updateSettings({
      projectId: h.project.id,
      toolDiscoveryCommand: discover,
      toolCallCommand: "echo",
    });
    await h.caller.extensions.rediscover({ projectId: h.project.id });
    let status = await h.caller.extensions.status({ projectId: h.project.id });
    expect(status.discovery).toMatchObject({ tools: [], error: expect.stringMatching(/is refused: Recursive delete/) });

    await h.caller.agent.updateSettings({
      projectId: h.project.id,
      denyRules: [{ tool: "shell", commandPrefix: "touch" }],
    });
    await h.caller.extensions.updateSettings({
      projectId: h.project.id,
      toolDiscoveryCommand: `env X=1 touch pwned; echo '[]'`,
    });
    await h.caller.extensions.rediscover({ projectId: h.project.id });
    status = await h.caller.extensions.status({ projectId: h.project.id });
    expect(status.discovery.error).toMatch(/does not allow `touch` commands/);
    expect(await pwned()).toBe(false);
    await h.caller.extensions.updateSettings({
      projectId: h.project.id,
      toolDiscoveryCommand: "",
      toolCallCommand: "",
    });
  });
});
