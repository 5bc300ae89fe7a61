import fs from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgentHarness, only } from "@/server/test/agent-harness";

// memory's search finds what a person asked to be remembered (their user-scope memories) beside
// the project's (recall_user_context, which did only that, is folded into it), and
// skill loads a project skill's instructions, each called by the scripted model in a turn, with the
// result the model reads.

let h: Awaited<ReturnType<typeof createAgentHarness>>;
beforeAll(async () => {
  h = await createAgentHarness();
  const skills = path.join(h.env.dataDir, "workspaces", h.project.id, ".tandem/skills/release-notes");
  await fs.mkdir(skills, { recursive: true });
  await fs.writeFile(
    path.join(skills, "SKILL.md"),
    "---\nname: release-notes\ndescription: Write release notes\n---\nGroup the changes under Added, Fixed and Removed.\n",
  );
});
afterAll(() => h.dispose());

describe("recalling the user's memories, and skill", () => {
  it("memory search without a scope returns the person's own memories on the topic beside the project's", async () => {
    await h.caller.memory.save({
      projectId: h.project.id,
      scope: "user",
      key: "commit style",
      value: "Commit messages in the imperative, under 60 characters.",
    });
    await h.caller.memory.save({
      projectId: h.project.id,
      scope: "project",
      key: "commit scope",
      value: "Commit messages name the package first.",
    });
    const session = await h.newSession({
      replies: [
        { toolCalls: [{ id: "r1", name: "memory", arguments: { action: "search", query: "commit messages" } }] },
        { match: "", text: "Noted." },
      ],
    });
    const events = await h.send(session.id, "write a commit message");
    const result = only(events, "tool_result")[0]!.payload;
    expect(result).toMatchObject({ toolName: "memory", ok: true });
    expect(result.llm).toContain("Commit messages in the imperative, under 60 characters.");
    expect(result.llm).toContain("Commit messages name the package first.");
  });

  it("skill loads the project's skill instructions", async () => {
    const session = await h.newSession({
      replies: [
        { toolCalls: [{ id: "s1", name: "skill", arguments: { name: "release-notes" } }] },
        { match: "", text: "Writing them." },
      ],
    });
    const events = await h.send(session.id, "release notes please");
    const result = only(events, "tool_result")[0]!.payload;
    expect(result).toMatchObject({ toolName: "skill", ok: true });
    expect(result.llm).toContain("Group the changes under Added, Fixed and Removed.");
    const missing = await h.newSession({
      replies: [{ toolCalls: [{ id: "s2", name: "skill", arguments: { name: "nope" } }] }, { match: "", text: "ok" }],
    });
    const failed = only(await h.send(missing.id, "use nope"), "tool_result")[0]!.payload;
    expect(failed.ok).toBe(false);
    expect(failed.llm).toContain("release-notes");
  });
});
