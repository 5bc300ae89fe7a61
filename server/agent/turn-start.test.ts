import fs from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineTool } from "@/server/tools/define-tool";
import { ok } from "@/server/tools/result";
import { toSdkTools } from "./step";
import { createAgentHarness } from "@/server/test/agent-harness";

// What a turn's start reuses from earlier turns (tool schemas converted for the model) and what it
// must read fresh: instruction files, skills and workflows added on disk between two turns of a
// session (as a terminal or git pull would add them) are in the very next turn.

let h: Awaited<ReturnType<typeof createAgentHarness>>;
beforeAll(async () => {
  h = await createAgentHarness();
});
afterAll(() => h.dispose());

const systemOf = (request: (typeof h.model.requests)[number]) =>
  String(request.messages.find((m) => m.role === "system")?.content ?? "");
const put = async (file: string, text: string) => {
  const absolute = path.join(h.env.dataDir, "workspaces", h.project.id, file);
  await fs.mkdir(path.dirname(absolute), { recursive: true });
  await fs.writeFile(absolute, text);
};

describe("turn start", () => {
  it("a root AGENTS.md, a skill and a workflow written between two turns reach the next turn's prompt", async () => {
    const session = await h.newSession({
      replies: [
        { match: "first", text: "One." },
        { match: "second", text: "Two." },
      ],
    });
    h.model.requests.length = 0;
    await h.send(session.id, "first");
    const before = systemOf(h.model.requests[0]!);
    expect(before).not.toContain("Run the linter before every commit.");
    expect(before).not.toContain("changelog-entry");

    await put("AGENTS.md", "Run the linter before every commit.\n");
    await put(
      ".tandem/skills/changelog-entry/SKILL.md",
      "---\ndescription: Write a changelog entry\n---\nOne line per change.\n",
    );
    await put(
      ".tandem/workflows/nightly-check.yaml",
      "description: Check the build every night\nsteps:\n  - id: build\n    run: echo built\n",
    );
    await h.send(session.id, "second");
    const after = systemOf(h.model.requests[1]!);
    expect(after).toContain("Run the linter before every commit.");
    expect(after).toContain("changelog-entry: Write a changelog entry");
    expect(after).toContain("nightly-check: Check the build every night");
    // skill is offered once the project has skills, workflow's schema sent once it has workflows.
    expect(h.model.requests[0]!.tools).not.toContain("skill");
    expect(h.model.requests[0]!.tools).not.toContain("workflow");
    expect(h.model.requests[1]!.tools).toEqual(expect.arrayContaining(["skill", "workflow"]));
  });

  it("converts a schema for the model once, and keeps each tool's own description", () => {
    const input = z.object({ query: z.string() });
    const tool = (description: string) =>
      defineTool({
        name: "lookup",
        kind: "read",
        description,
        input,
        describe: () => "Lookup",
        execute: async () => ok(""),
      });
    const first = toSdkTools({ lookup: tool("Look up A.") }, "openai");
    const again = toSdkTools({ lookup: tool("Look up A.") }, "openai");
    const other = toSdkTools({ lookup: tool("Look up B.") }, "openai");
    expect(again.lookup).toBe(first.lookup);
    expect(other.lookup).not.toBe(first.lookup);
    expect(other.lookup!.description).toBe("Look up B.");
    expect(first.lookup!.description).toBe("Look up A.");
    // Many descriptions of one schema (tool_search's as a project's tools change) are not all kept.
    for (let i = 0; i < 40; i++) toSdkTools({ lookup: tool(`Look up ${i}.`) }, "openai");
    expect(toSdkTools({ lookup: tool("Look up A.") }, "openai").lookup).not.toBe(first.lookup);
    expect(toSdkTools({ lookup: tool("Look up 39.") }, "openai").lookup!.description).toBe("Look up 39.");
  });
});
