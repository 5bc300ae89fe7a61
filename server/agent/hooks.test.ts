import fs from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { foldTranscript } from "@/lib/session-transcript";
import { createAgentHarness, only } from "@/server/test/agent-harness";
import { until } from "@/server/test/until";
import { MAX_FOUND_WRITE_HOOKS } from "./hooks";

// The project's hooks (.tandem/hooks.json) through the running runtime: the repository plants the
// file, so nothing runs until a project admin approved its exact bytes; then PreToolUse hooks can
// block a call with a reason, PostToolUse and FileWritten hooks run after it, and every run shows
// in the session. Attacks: a planted file, a file changed after approval, a link to approved bytes,
// a hook that hangs (killed with its process group at its timeout), a stale approval.

let h: Awaited<ReturnType<typeof createAgentHarness>>;
let root: string;
beforeAll(async () => {
  h = await createAgentHarness({ coreTools: true, extensions: {} });
  root = (await h.env.services.files.open(h.project.id)).root;
});
afterAll(() => h.dispose());
beforeEach(async () => {
  await h.caller.agent.revokeHooks({ projectId: h.project.id });
  await h.caller.agent.updateSettings({ projectId: h.project.id, approvalMode: "yolo", denyRules: [] });
  for (const name of ["pwned", "src", "post.log", "bg.pid", "late", ".tandem"])
    await fs.rm(path.join(root, name), { recursive: true, force: true });
  await fs.mkdir(path.join(root, ".tandem"));
});

const exists = (rel: string) =>
  fs.access(path.join(root, rel)).then(
    () => true,
    () => false,
  );

async function plant(hooks: unknown) {
  await fs.writeFile(path.join(root, ".tandem/hooks.json"), JSON.stringify({ hooks }, null, 2));
}

async function approve() {
  const status = await h.caller.agent.hooks({ projectId: h.project.id });
  expect(status.state).toBe("unapproved");
  await h.caller.agent.approveHooks({ projectId: h.project.id, digest: status.digest });
}

/** The agent writes `file` with write_file, then says done. */
async function agentWrites(file: string, marker: string) {
  const session = await h.newSession({
    replies: [
      { match: marker, toolCalls: [{ name: "write_file", arguments: { path: file, content: "hello\n" } }] },
      { text: "done" },
    ],
  });
  return { session, events: await h.send(session.id, marker) };
}

/** The agent runs `command` with the shell tool, then says done. */
async function agentRuns(command: string, marker: string) {
  const session = await h.newSession({
    replies: [{ match: marker, toolCalls: [{ name: "shell", arguments: { command } }] }, { text: "done" }],
  });
  return h.send(session.id, marker);
}

const blockSrc = {
  PreToolUse: [
    {
      matcher: "write_file|edit",
      paths: ["src/**"],
      hooks: [{ type: "command", command: "touch pwned; echo 'src/ is generated: edit the template' >&2; exit 2" }],
    },
  ],
};

describe("hooks from the repository", () => {
  it("a planted hooks file does not run: the session says it waits for a project admin", async () => {
    await plant(blockSrc);
    const { events } = await agentWrites("src/a.ts", "planted");
    expect(await exists("pwned")).toBe(false);
    expect(await exists("src/a.ts")).toBe(true);
    expect(only(events, "hook_ran")).toHaveLength(0);
    expect(only(events, "hooks_held")[0]!.payload.reason).toMatch(/not approved.*project admin approves/);
    expect(foldTranscript(events).items.some((i) => i.kind === "notice" && /not approved/.test(i.text))).toBe(true);
  });

  it("once approved, a PreToolUse hook blocks a matching call with its reason; other paths pass", async () => {
    await plant(blockSrc);
    await approve();
    const { events } = await agentWrites("src/b.ts", "blocked");
    expect(await exists("src/b.ts")).toBe(false);
    expect(await exists("pwned")).toBe(true);
    const result = only(events, "tool_result")[0]!.payload;
    expect(result.errorCode).toBe("BLOCKED_BY_HOOK");
    expect(result.llm).toContain("src/ is generated: edit the template");
    const ran = only(events, "hook_ran")[0]!.payload;
    expect(ran).toMatchObject({ hookEvent: "PreToolUse", outcome: "blocked", exitCode: 2 });
    const item = foldTranscript(events).items.find((i) => i.kind === "hook");
    expect(item).toMatchObject({ outcome: "blocked", output: "src/ is generated: edit the template" });

    const other = await agentWrites("docs.md", "elsewhere");
    expect(await exists("docs.md")).toBe(true);
    expect(only(other.events, "hook_ran")).toHaveLength(0);
    await fs.rm(path.join(root, "docs.md"));
  });

  it("PostToolUse and FileWritten hooks run after the write with the call on stdin; exit 2 feeds the model", async () => {
    await plant({
      AfterTool: [{ matcher: "write_*", hooks: [{ type: "command", command: "cat > post.log; echo post ran" }] }],
      FileWritten: [
        {
          paths: ["**/*.ts"],
          hooks: [
            { type: "command", command: "echo \"lint: $(cat | grep -o 'src/[a-z.]*') has a problem\" >&2; exit 2" },
          ],
        },
      ],
    });
    await approve();
    const { events } = await agentWrites("src/c.ts", "after");
    expect(await exists("src/c.ts")).toBe(true);
    const runs = only(events, "hook_ran").map((e) => e.payload);
    expect(runs.map((r) => [r.hookEvent, r.outcome])).toEqual([
      ["PostToolUse", "ok"],
      ["FileWritten", "blocked"],
    ]);
    expect(runs[0]!.output).toBe("post ran");
    const stdin = JSON.parse(await fs.readFile(path.join(root, "post.log"), "utf8"));
    expect(stdin).toMatchObject({
      hook_event_name: "PostToolUse",
      tool_name: "write_file",
      tool_input: { path: "src/c.ts" },
      tool_response: { ok: true },
    });
    const result = only(events, "tool_result")[0]!.payload;
    expect(result.ok).toBe(true);
    expect(result.llm).toContain("lint: src/c.ts has a problem");
  });

  it("FileWritten hooks run for the files a shell command wrote, matched by path, as for the file tools", async () => {
    await plant({
      FileWritten: [{ paths: ["*.ts"], hooks: [{ type: "command", command: "cat >> written.log; echo format ran" }] }],
    });
    await approve();
    await fs.writeFile(path.join(root, "same.ts"), "unchanged\n");
    const events = await agentRuns("echo x > a.ts && echo y > b.md && touch same.ts", "by shell");
    expect(await fs.readFile(path.join(root, "a.ts"), "utf8")).toBe("x\n");
    const runs = only(events, "hook_ran").map((e) => e.payload);
    expect(runs).toEqual([expect.objectContaining({ hookEvent: "FileWritten", outcome: "ok", output: "format ran" })]);
    const stdin = JSON.parse(await fs.readFile(path.join(root, "written.log"), "utf8"));
    expect(stdin).toMatchObject({ hook_event_name: "FileWritten", tool_name: "shell", file_path: "a.ts" });

    // A command that writes nothing runs no FileWritten hook.
    expect(only(await agentRuns("cat a.ts", "nothing"), "hook_ran")).toEqual([]);
    for (const name of ["a.ts", "b.md", "same.ts", "written.log"]) await fs.rm(path.join(root, name), { force: true });
  });

  it("a shell command that writes many watched files runs FileWritten hooks for the first 25 and says so", async () => {
    await plant({ FileWritten: [{ paths: ["gen/*.ts"], hooks: [{ type: "command", command: "true" }] }] });
    await approve();
    const events = await agentRuns("mkdir -p gen && for i in $(seq 30); do echo $i > gen/f$i.ts; done", "many");
    expect(only(events, "hook_ran")).toHaveLength(MAX_FOUND_WRITE_HOOKS);
    expect(only(events, "tool_result")[0]!.payload.llm).toContain(
      `FileWritten hooks ran for the first ${MAX_FOUND_WRITE_HOOKS} of the 30 files`,
    );
    await fs.rm(path.join(root, "gen"), { recursive: true, force: true });
  }, 60_000);

  it("a file changed after approval stops running until approved again", async () => {
    await plant(blockSrc);
    await approve();
    await plant({ PreToolUse: [{ hooks: [{ type: "command", command: "touch pwned" }] }] });
    const status = await h.caller.agent.hooks({ projectId: h.project.id });
    expect(status).toMatchObject({ state: "unapproved", changedSinceApproval: true });
    const { events } = await agentWrites("notes.txt", "changed");
    expect(await exists("pwned")).toBe(false);
    expect(only(events, "hooks_held")[0]!.payload.reason).toMatch(/changed since a project admin approved it/);
    await fs.rm(path.join(root, "notes.txt"));
  });

  it("a hooks file that is a link to approved bytes is refused", async () => {
    await plant(blockSrc);
    await approve();
    await fs.rename(path.join(root, ".tandem/hooks.json"), path.join(root, "approved.json"));
    await fs.symlink("../approved.json", path.join(root, ".tandem/hooks.json"));
    const status = await h.caller.agent.hooks({ projectId: h.project.id });
    expect(status.state).toBe("invalid");
    expect(status.problem).toMatch(/link/);
    const { events } = await agentWrites("src/d.ts", "linked");
    expect(await exists("pwned")).toBe(false);
    expect(await exists("src/d.ts")).toBe(true);
    expect(only(events, "hooks_held")[0]!.payload.reason).toMatch(/link/);
    await fs.rm(path.join(root, "approved.json"));
  });

  it("an approval for bytes the admin did not see is refused", async () => {
    await plant(blockSrc);
    const seen = await h.caller.agent.hooks({ projectId: h.project.id });
    await plant({ PreToolUse: [{ hooks: [{ type: "command", command: "touch pwned" }] }] });
    await expect(h.caller.agent.approveHooks({ projectId: h.project.id, digest: seen.digest })).rejects.toThrow(
      /changed since it was shown/,
    );
    expect((await h.caller.agent.hooks({ projectId: h.project.id })).state).toBe("unapproved");
  });

  it("a hook that hangs is killed at its timeout with its background children, and the call goes on", async () => {
    await plant({
      PreToolUse: [
        {
          hooks: [{ type: "command", command: "(sleep 30; touch late) & echo $! > bg.pid; sleep 30", timeout: 1 }],
        },
      ],
    });
    await approve();
    const started = Date.now();
    const { events } = await agentWrites("e.txt", "hangs");
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(only(events, "hook_ran")[0]!.payload).toMatchObject({ outcome: "timed_out" });
    expect(await exists("e.txt")).toBe(true);
    const pid = Number(await fs.readFile(path.join(root, "bg.pid"), "utf8"));
    await until(
      () => {
        try {
          process.kill(pid, 0);
          return false;
        } catch {
          return true;
        }
      },
      "the hook's background child is gone",
      5_000,
    );
    await fs.rm(path.join(root, "e.txt"));
  });

  it("a hook command the project's deny rules forbid does not run", async () => {
    await plant({ PreToolUse: [{ hooks: [{ type: "command", command: "touch pwned" }] }] });
    await approve();
    await h.caller.agent.updateSettings({
      projectId: h.project.id,
      denyRules: [{ tool: "shell", commandPrefix: "touch" }],
    });
    const { events } = await agentWrites("f.txt", "denied");
    expect(await exists("pwned")).toBe(false);
    expect(only(events, "hook_ran")[0]!.payload).toMatchObject({ outcome: "refused" });
    expect(await exists("f.txt")).toBe(true);
    await fs.rm(path.join(root, "f.txt"));
  });
});
