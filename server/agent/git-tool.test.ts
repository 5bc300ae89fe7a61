import { execFileSync } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgentHarness, only } from "@/server/test/agent-harness";

// The git tool through the runtime, on a real repository in the workspace: reads run at once,
// a commit asks and, once approved, is made by the agent for the person, of the paths it named.

let h: Awaited<ReturnType<typeof createAgentHarness>>;
let root: string;
const git = (...args: string[]) => execFileSync("git", args, { cwd: root, encoding: "utf8" }).trim();

beforeAll(async () => {
  h = await createAgentHarness();
  root = (await h.env.services.files.open(h.project.id)).root;
  git("init", "-q", "-b", "main");
  await fs.writeFile(path.join(root, "app.txt"), "one\n");
  git("add", "app.txt");
  git("-c", "user.name=Ada", "-c", "user.email=ada@example.com", "commit", "-qm", "First commit");
  await fs.writeFile(path.join(root, "app.txt"), "one\ntwo\n");
  await fs.writeFile(path.join(root, "new.txt"), "new\n");
}, 60_000);
afterAll(() => h.dispose());

describe("git tool", () => {
  it("reads status, diff, log and branches without asking; commits only once approved", async () => {
    const call = (id: string, args: Record<string, unknown>) => ({ id, name: "git", arguments: args });
    const session = await h.newSession({
      replies: [
        {
          match: "look",
          toolCalls: [
            call("c1", { action: "status" }),
            call("c2", { action: "diff" }),
            call("c3", { action: "log" }),
            call("c4", { action: "branch" }),
            call("c5", { action: "diff", path: "../outside.txt" }),
          ],
        },
        {
          match: "OUTSIDE_WORKSPACE",
          toolCalls: [call("c6", { action: "commit", message: "Add two", paths: ["app.txt"] })],
        },
        { match: "Committed 1 file", text: "Done." },
      ],
    });
    const events = await h.send(session.id, "look at the repo");
    const results = only(events, "tool_result").map((e) => e.payload);
    expect(results.slice(0, 5).map((r) => r.ok)).toEqual([true, true, true, true, false]);
    expect(results[0]!.llm).toContain("branch: main");
    expect(results[0]!.llm).toMatch(/changed:\n {2}M app\.txt/);
    expect(results[0]!.llm).toMatch(/untracked:\n {2}new\.txt/);
    expect(results[1]!.llm).toContain("+two");
    expect(results[2]!.llm).toMatch(/^[0-9a-f]{10} \d{4}-\d{2}-\d{2} Ada: First commit$/);
    expect(results[3]!.llm).toBe("* main");
    expect(results[4]!.errorCode).toBe("OUTSIDE_WORKSPACE");

    const asked = only(events, "approval_requested").at(-1)!.payload;
    expect(asked.toolName).toBe("git");
    expect(git("log", "--format=%s")).toBe("First commit");
    await h.caller.approval.respond({ approvalId: asked.approvalId, decision: "approve" });
    await h.agent.idle(session.id);
    const committed = only(await h.events(session.id), "tool_result").at(-1)!.payload;
    expect(committed).toMatchObject({ toolName: "git", ok: true });
    expect(git("log", "--format=%s|%an|%ae", "-1")).toBe(
      `Add two|${h.user.name} (Tandem agent)|agent+${session.id}@tandem.invalid`,
    );
    expect(git("status", "--porcelain")).toBe("?? new.txt");
  }, 60_000);
});
