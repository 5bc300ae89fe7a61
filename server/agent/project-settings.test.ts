import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgentHarness } from "@/server/test/agent-harness";

// A project's agent settings as the model meets them: a built-in tool a project admin turned off
// is not in the model's tool list at all, and the step limit set there ends a turn.

let h: Awaited<ReturnType<typeof createAgentHarness>>;
beforeAll(async () => {
  h = await createAgentHarness({ coreTools: true });
});
afterAll(() => h.dispose());

describe("per-project agent settings", () => {
  it("does not advertise a switched-off core tool to the model", async () => {
    const session = await h.newSession({ replies: [{ text: "ok" }, { text: "ok again" }] });
    await h.send(session.id, "first");
    expect(h.model.requests.at(-1)!.tools).toEqual(expect.arrayContaining(["read_file", "shell", "grep"]));

    await h.caller.agent.updateSettings({ projectId: h.project.id, excludeTools: ["shell", "grep"] });
    await h.send(session.id, "second");
    const tools = h.model.requests.at(-1)!.tools;
    expect(tools).toContain("read_file");
    expect(tools).not.toContain("shell");
    expect(tools).not.toContain("grep");
    expect((await h.caller.agent.settings({ projectId: h.project.id })).excludeTools).toEqual(["shell", "grep"]);
  });

  it("refuses names that are not switchable built-in tools", async () => {
    await expect(
      h.caller.agent.updateSettings({ projectId: h.project.id, excludeTools: ["delegate"] as never }),
    ).rejects.toThrow(/Invalid option|expected one of/i);
  });

  it("ends a turn at the project's step limit", async () => {
    await h.caller.agent.updateSettings({
      projectId: h.project.id,
      excludeTools: [],
      stepLimit: 1,
      approvalMode: "yolo",
    });
    const session = await h.newSession({
      replies: [
        { text: "Looking.", toolCalls: [{ id: "c1", name: "ls", arguments: {} }] },
        { text: "Looking more.", toolCalls: [{ id: "c2", name: "ls", arguments: {} }] },
      ],
    });
    const events = await h.send(session.id, "list twice");
    const finished = events.filter((e) => e.type === "turn_finished").at(-1);
    expect(finished?.payload).toMatchObject({ reason: "step_limit" });
    expect(h.model.requests.length).toBeGreaterThan(0);
  });
});
