import fs from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgentHarness, only } from "@/server/test/agent-harness";

// A workflow the model writes inline in its call (YAML or JSON) runs as a named one does, through
// the runtime: its commands are listed on the approval and run once approved; a definition that
// is too large, too deep or not a workflow is refused with the reason, before anything runs.

let h: Awaited<ReturnType<typeof createAgentHarness>>;
let root: string;
beforeAll(async () => {
  h = await createAgentHarness({ extensions: {} });
  root = (await h.env.services.files.open(h.project.id)).root;
});
afterAll(() => h.dispose());

const inline = (definition: string, inputs?: Record<string, string>) => ({
  name: "workflow",
  arguments: { definition, ...(inputs ? { inputs } : {}) },
});

describe("inline workflows", () => {
  it("runs a YAML definition's steps once approved, its commands on the approval card", async () => {
    const definition = [
      "inputs:",
      "  word: { default: hello }",
      "steps:",
      "  - id: say",
      "    run: echo {{ inputs.word }} > said.txt && cat said.txt",
      "  - id: shout",
      "    run: echo '{{ steps.say.output }}!'",
    ].join("\n");
    const session = await h.newSession({
      replies: [
        { match: "say it", toolCalls: [inline(definition, { word: "inline" })] },
        { match: "Workflow inline finished", text: "said" },
      ],
    });
    const events = await h.send(session.id, "say it");
    const asked = only(events, "approval_requested").at(-1)!.payload;
    expect(asked.toolName).toBe("workflow");
    expect(asked.commands).toEqual(["echo 'inline' > said.txt && cat said.txt", "echo '{{ steps.say.output }}!'"]);
    await h.caller.approval.respond({ approvalId: asked.approvalId, decision: "approve" });
    await h.agent.idle(session.id);
    const result = only(await h.events(session.id), "tool_result").at(-1)!.payload;
    expect(result).toMatchObject({ toolName: "workflow", ok: true });
    expect(result.llm).toContain("Workflow inline finished: 2 steps.");
    expect(result.llm).toContain("## shout (run, exit 0) ok\n\ninline!");
    expect(await fs.readFile(path.join(root, "said.txt"), "utf8")).toBe("inline\n");
  }, 30_000);

  it("runs a JSON definition too", async () => {
    const definition = JSON.stringify({ steps: [{ id: "only", run: "echo from json" }] });
    await h.caller.agent.updateSettings({ projectId: h.project.id, approvalMode: "yolo", allowRules: [] });
    const session = await h.newSession({
      replies: [
        { match: "json it", toolCalls: [inline(definition)] },
        { match: "Workflow inline finished", text: "done" },
      ],
    });
    const events = await h.send(session.id, "json it");
    const result = only(events, "tool_result").at(-1)!.payload;
    expect(result).toMatchObject({ toolName: "workflow", ok: true });
    expect(result.llm).toContain("from json");
    await h.caller.agent.updateSettings({ projectId: h.project.id, approvalMode: "ask" });
  }, 30_000);

  it("refuses a definition nested too deep, one over the size cap, a wrong shape and both forms at once, running nothing", async () => {
    await h.caller.agent.updateSettings({ projectId: h.project.id, approvalMode: "yolo" });
    const deep = `steps: ${"[".repeat(20_000)}${"]".repeat(20_000)}`;
    const calls = [
      inline(deep),
      inline(`steps:\n  - id: a\n    run: touch pwned\n# ${"x".repeat(70_000)}`),
      inline("steps:\n  - id: a\n    shell: touch pwned"),
      { name: "workflow", arguments: { workflow: "ship", definition: "steps: []" } },
    ];
    const session = await h.newSession({
      replies: [
        { match: "go", toolCalls: calls.map((c, n) => ({ ...c, id: `call_${n}` })) },
        { match: "invalid", text: "ok" },
      ],
    });
    const events = await h.send(session.id, "go");
    const results = only(events, "tool_result").map((e) => e.payload);
    expect(results).toHaveLength(4);
    expect(results.every((r) => r.ok === false && r.errorCode === "INVALID_INPUT")).toBe(true);
    expect(results[0]!.llm).toMatch(/The inline workflow is invalid: it nests deeper than 32 levels/);
    expect(results[1]!.llm).toMatch(/at most 65536 characters; save a longer one as \.tandem\/workflows/);
    expect(results[2]!.llm).toMatch(/The inline workflow is invalid: steps\.0/);
    expect(results[3]!.llm).toMatch(/give either `workflow`.*or `definition`/);
    await expect(fs.access(path.join(root, "pwned"))).rejects.toThrow();
    await h.caller.agent.updateSettings({ projectId: h.project.id, approvalMode: "ask" });
  }, 30_000);

  it("a workflow file in the workspace nested too deep is listed as a problem and the server goes on", async () => {
    await fs.mkdir(path.join(root, ".tandem/workflows"), { recursive: true });
    await fs.writeFile(path.join(root, ".tandem/workflows/bomb.yaml"), `steps: ${"[".repeat(20_000)}`);
    const started = performance.now();
    const listed = await h.caller.extensions.workflows({ projectId: h.project.id });
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(listed.problems).toEqual([
      { path: ".tandem/workflows/bomb.yaml", message: expect.stringMatching(/nests deeper than 32 levels/) },
    ]);
  });
});
