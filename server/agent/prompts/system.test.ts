import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { storeMemory, setMemoryPinned } from "@/server/db/repositories/memories";
import { createAgentHarness, only } from "@/server/test/agent-harness";
import { foldTranscript } from "@/lib/session-transcript";
import { until } from "@/server/test/until";
import { buildSystemPrompt } from "./system";
import { sandboxRuntimes } from "./workspace-probe";
import { EMPTY_CONTEXT, MAX_INSTRUCTION_CHARS } from "./context";

// The system prompt rendered for a real workspace (git, AGENTS.md, memories, skills, agents), as
// the scripted model receives it: each section's facts must be there and true.

let h: Awaited<ReturnType<typeof createAgentHarness>>;
beforeAll(async () => {
  h = await createAgentHarness({ coreTools: true });
});
afterAll(() => h.dispose());

describe("the system prompt", () => {
  it("states true facts about the workspace and carries what the project adds", async () => {
    const files = await h.env.services.files.open(h.project.id);
    const root = files.root;
    const git = (...args: string[]) =>
      execFileSync("git", ["-c", "user.name=T", "-c", "user.email=t@example.com", ...args], { cwd: root });
    await files.create("AGENTS.md", "# Rules\nRun tests with `npm test -- --run`.\n");
    await files.create("TANDEM.md", `${"Long guidance. ".repeat(2000)}END-OF-TANDEM`);
    await files.create("src/app.ts", "export const x = 1;\n", { createParents: true });
    await files.create(
      ".tandem/skills/release/SKILL.md",
      "---\ndescription: Cut a release with the changelog\n---\nSteps…\n",
      { createParents: true },
    );
    await files.create(".tandem/agents/reviewer.md", "---\ndescription: Reviews a diff for bugs\n---\nBe strict.\n", {
      createParents: true,
    });
    git("init", "-q", "-b", "main");
    git("add", "AGENTS.md", "src/app.ts");
    git("commit", "-qm", "first");
    await files.write("src/app.ts", "export const x = 2;\n");
    const db = h.env.services.db;
    const project = { scope: "project" as const, projectId: h.project.id };
    await storeMemory(db, project, {
      key: "test-command",
      value: "npm test -- --run\nsecond line stays out",
      createdById: null,
    });
    await storeMemory(db, project, {
      key: "deploy",
      value: "Deploys go through the staging cluster first.",
      createdById: null,
    });
    await storeMemory(db, project, {
      key: "style",
      value: "Two-space indentation.\nNo semicolons in scripts.",
      createdById: null,
    });
    await setMemoryPinned(db, project, "style", true);
    await storeMemory(
      db,
      { scope: "user", userId: h.user.id },
      { key: "tone", value: "Short answers please.", createdById: null },
    );
    await setMemoryPinned(db, { scope: "user", userId: h.user.id }, "tone", true);

    // On a loaded machine the probe can outlast the 2 s a turn waits for it: wait for its answer here.
    await until(
      async () => (await sandboxRuntimes(h.env.services.sandbox, root, { id: h.project.id, toolchains: "" })) !== null,
      "the sandbox's runtimes",
      30_000,
    );
    const session = await h.newSession({ replies: [{ text: "ok" }] });
    const events = await h.send(session.id, "How do we handle deploys to staging?");
    const system = String(h.model.requests.at(-1)!.messages[0]!.content);
    const section = (name: string) => system.slice(system.indexOf(`# ${name}\n`)).split(/\n# /)[0]!;

    const environment = section("Environment");
    expect(environment).toContain(`Workspace root: ${root}`);
    expect(environment).toMatch(/Linux; commands run in bash, without a sandbox/); // the tests run with TANDEM_SANDBOX=none
    expect(environment).toContain("Only the workspace persists between shell calls");
    expect(environment).toContain("so install into the workspace");
    expect(environment).toMatch(/Runtimes on the PATH: node \d+\.\d+\.\d+, .*\bnpm\b/); // probed in the (here unsandboxed) shell
    expect(environment).toMatch(/Network: off\. Shell commands cannot reach any host/);
    expect(environment).toMatch(/Git: a repository on branch main, with 3 changed files \(git status codes\): /);
    for (const change of [".M src/app.ts", "?? TANDEM.md", "?? .tandem/"]) expect(environment).toContain(change);
    expect(environment).toContain("git works in the shell (git --no-pager status, diff, log, commit)");
    expect(environment).toContain(`Today is ${new Date().toISOString().slice(0, 10)}.`);
    expect(environment).toContain("People may be editing files at the same time as you");

    expect(section("How to work")).toMatch(/todo_write list: exactly one item in_progress/);
    expect(section("How to work")).toContain("Keep going until the task is done and verified");
    expect(section("How to work")).toContain("If the same approach fails twice, stop and rethink");
    expect(section("How to work")).toContain("For a bug, reproduce it first");
    expect(section("How to work")).not.toContain("diagnostics"); // no language servers here
    expect(section("How to work")).toContain("Failures your change did not cause: leave them alone and name them");
    expect(section("Safety and approvals")).toContain("Approval mode: ask.");
    expect(section("Safety and approvals")).toContain("Look things up with your tools before asking");
    expect(section("Tool use")).toContain("relative to the workspace root, even after a cd");
    expect(section("Safety and approvals")).toContain("A rejected call is not retried or worked around");
    expect(section("Safety and approvals")).toContain("Ask with ask_user only when");
    expect(section("Communication")).toContain("path:line");

    const context = system.slice(system.indexOf("# Context\n")); // the last section; AGENTS.md has headings of its own
    expect(context).toContain("## Project instructions (AGENTS.md)\n\n# Rules\nRun tests with `npm test -- --run`.");
    expect(context).toContain(
      `[TANDEM.md was cut here: ${MAX_INSTRUCTION_CHARS} of ${"Long guidance. ".repeat(2000).length + "END-OF-TANDEM".length} characters are shown.`,
    );
    expect(context).not.toContain("END-OF-TANDEM");
    expect(context).toContain("### style (project, pinned)\nTwo-space indentation.\nNo semicolons in scripts.");
    expect(context).toContain("### tone (user, pinned)\nShort answers please.");
    expect(context).toContain("### deploy (project)\nDeploys go through the staging cluster first."); // relevant to the message
    expect(context).toContain("- test-command (project): npm test -- --run");
    expect(context).not.toContain("second line stays out");
    expect(context).toContain(
      "## Skills (load one with skill {name} when a task matches it)\n- release: Cut a release with the changelog",
    );
    expect(context).toContain("## Agents (delegate {agent, task} to one)\n- reviewer: Reviews a diff for bugs");
    expect(context).toContain("memory holds lasting facts");
    expect(context).toMatch(/## Top level of the workspace\n(.|\n)*src\//);

    // People see what the prompt carried.
    expect(only(events, "turn_started").at(-1)!.payload.context).toEqual({
      memories: 3,
      files: ["AGENTS.md", "TANDEM.md"],
    });
    expect(foldTranscript(events).items).toContainEqual(
      expect.objectContaining({ kind: "context", label: "3 memories, AGENTS.md, TANDEM.md" }),
    );
  });

  it("keeps the fixed part under 8k characters", () => {
    const fixed = buildSystemPrompt({
      projectName: "p",
      root: "/data/workspaces/p",
      now: new Date(),
      sandbox: "bwrap",
      network: { policy: "off", allowHosts: [] },
      git: { repository: true, branch: "main", upstream: null, changes: [] },
      toolNames: [
        "read_file",
        "delegate",
        "ask_user",
        "memory",
        "note",
        "web_fetch",
        "skill",
        "workflow",
        "diagnostics",
        "shell",
      ],
      approvalMode: "auto-edit",
      runtimes: ["node 24.1.0", "npm 11.6.0", "python3 3.12.3"],
      context: EMPTY_CONTEXT,
    });
    expect(fixed.length).toBeLessThan(8000);
    const environment = fixed.slice(fixed.indexOf("# Environment"), fixed.indexOf("# How to work"));
    expect(environment).toContain("Runtimes on the PATH: node 24.1.0, npm 11.6.0, python3 3.12.3.");
    expect(environment).toContain(
      "a server started in the background keeps running, but later calls cannot connect to it",
    );
    expect(environment).toMatch(
      /A failure the sandbox causes .* is not fixed by retrying variants: say it is the sandbox/,
    );
    expect(fixed).toContain("Approval mode: auto-edit. Edits and writes run at once");
    expect(fixed).toContain("Run the narrowest check first (diagnostics is the fast type check)");
  });

  it("names the project's toolchains and a failed setup with its exit code", () => {
    const prompt = (environment: Parameters<typeof buildSystemPrompt>[0]["environment"]) =>
      buildSystemPrompt({
        projectName: "p",
        root: "/data/workspaces/p",
        now: new Date(),
        sandbox: "bwrap",
        network: { policy: "off", allowHosts: [] },
        git: null,
        toolNames: ["shell"],
        approvalMode: "auto-edit",
        runtimes: null,
        environment,
        context: EMPTY_CONTEXT,
      });
    const base = { source: "repository" as const, trigger: "clone" as const, startedAt: new Date() };
    const failed = prompt({
      toolchains: [
        { name: "node", spec: "22.12.0", from: ".nvmrc", version: "22.12.0", problem: null },
        {
          name: "python",
          spec: "3.13",
          from: "settings",
          version: null,
          problem: "Python 3.13 is not on this server.",
        },
      ],
      setup: { ...base, status: "failed", exitCode: 2, endedAt: new Date() },
    });
    expect(failed).toContain("Toolchains of this project, first on the PATH: node 22.12.0 (from .nvmrc).");
    expect(failed).toContain(
      "python 3.13 (from the project settings) is not available: Python 3.13 is not on this server.",
    );
    expect(failed).toContain("The project's setup script (.tandem/setup.sh) failed with exit code 2");
    const succeeded = prompt({
      toolchains: [],
      setup: { ...base, status: "succeeded", exitCode: 0, endedAt: new Date() },
    });
    expect(succeeded).toMatch(/setup script \(\.tandem\/setup\.sh\) succeeded at/);
    expect(prompt(null)).not.toContain("setup script");
  });

  it("adds the model family's lines, and says whether a background server answers later calls", () => {
    const prompt = (modelId: string, sharedNetwork: boolean) =>
      buildSystemPrompt({
        projectName: "p",
        root: "/data/workspaces/p",
        now: new Date(),
        sandbox: "bwrap",
        network: { policy: "off", allowHosts: [] },
        git: null,
        toolNames: ["read_file", "shell"],
        approvalMode: "ask",
        runtimes: null,
        sharedNetwork,
        modelId,
        context: EMPTY_CONTEXT,
      });
    expect(prompt("anthropic:claude-sonnet-4-5", true)).toContain("Do what was asked, nothing more");
    expect(prompt("openai:gpt-5", true)).toContain("Do not stop to ask whether to go on");
    expect(prompt("openai:o3", true)).toContain("Do not restate your reasoning");
    expect(prompt("google:gemini-2.5-pro", true)).toContain("Copy old_string from what read_file returned");
    expect(prompt("ollama:qwen2.5-coder:7b", true)).toContain("Call only the tools you were given");
    // A gateway serving a Claude model gets Claude's lines.
    expect(prompt("openai-compatible:anthropic/claude-opus-4", true)).toContain("Do what was asked, nothing more");
    expect(prompt("anthropic:claude-sonnet-4-5", true)).toContain(
      "a server started in the background answers later calls",
    );
    expect(prompt("anthropic:claude-sonnet-4-5", false)).toContain("later calls cannot connect to it");
  });
});
