import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgentHarness, only } from "@/server/test/agent-harness";
import { sandboxMode } from "@/server/test/sandbox-guard";

// Two sessions on two branches, each in its own worktree, edit the same file differently at the
// same time through the real agent loop (scripted model, real tools, real git, the sandbox when
// there is one): each one's shell sees only its own change, the main tree none until a merge,
// and merging both gives the first as a fast-forward and the second as a conflict.

let h: Awaited<ReturnType<typeof createAgentHarness>>;
let main: string;
const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "safe.directory=*", ...args], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" },
  });

beforeAll(async () => {
  h = await createAgentHarness({ coreTools: true, extensions: {}, sandbox: sandboxMode });
  await h.caller.agent.updateSettings({
    projectId: h.project.id,
    approvalMode: "yolo",
    allowRules: [{ tool: "shell" }],
  });
  main = h.env.services.files.pathOf(h.project.id);
  await h.env.services.files.open(h.project.id);
  await writeFile(path.join(main, "greeting.txt"), "hello\n");
  git(main, "init", "-q", "-b", "main");
  git(main, "add", ".");
  git(main, "-c", "user.name=Ada", "-c", "user.email=ada@example.com", "commit", "-qm", "first");
});
afterAll(() => h?.dispose());

/** One turn's replies: a new file through write_file, then the shared file changed and inspected in the shell. */
function turn(name: string) {
  const command = `printf 'hello from ${name}\\n' > greeting.txt && echo ${name}-done && git status --porcelain && git --no-pager diff`;
  return [
    {
      match: `${name}:`,
      toolCalls: [
        { id: `${name}_write`, name: "write_file", arguments: { path: `${name}.md`, content: `# ${name}\n` } },
        { id: `${name}_shell`, name: "shell", arguments: { command } },
      ],
    },
    { match: `${name}-done`, text: `${name} finished.` },
  ];
}

const shellOutput = (events: Awaited<ReturnType<typeof h.events>>) =>
  only(events, "tool_result")
    .map((e) => JSON.stringify(e.payload))
    .find((p) => p.includes("-done"))!;

describe("sessions on branches of their own", () => {
  it("offers branches on a repository, and names the branch checked out", async () => {
    const options = await h.caller.tree.options({ projectId: h.project.id });
    expect(options).toMatchObject({ repository: true, current: "main", branches: ["main"] });
  });

  it("edit the same file at once, each in its own tree, and merge: a fast-forward, then a conflict", {
    timeout: 120_000,
  }, async () => {
    const alpha = await h.caller.tree.startSession({ projectId: h.project.id, title: "Alpha" });
    const beta = await h.caller.tree.startSession({ projectId: h.project.id, title: "Beta", branch: "tandem/second" });
    const trees = (await h.caller.tree.list({ projectId: h.project.id })).filter((t) =>
      [alpha.id, beta.id].includes(t.sessionId),
    );
    expect(trees.map((t) => t.branch).sort()).toEqual(["tandem/alpha", "tandem/second"]);
    expect(trees.every((t) => t.baseRef === "main" && t.state === "open" && (t.sizeBytes ?? 0) > 0)).toBe(true);

    h.model.load({ replies: [...turn("alpha"), ...turn("beta")] });
    const [alphaEvents, betaEvents] = await Promise.all([
      h.send(alpha.id, "alpha: change the greeting"),
      h.send(beta.id, "beta: change the greeting"),
    ]);
    expect(await h.status(alpha.id)).toBe("idle");
    expect(await h.status(beta.id)).toBe("idle");

    // Each shell saw only its own tree: its own new file and its own line, nothing of the other's.
    const alphaShell = shellOutput(alphaEvents);
    expect(alphaShell).toContain("?? alpha.md");
    expect(alphaShell).toContain("+hello from alpha");
    expect(alphaShell).not.toMatch(/beta/);
    const betaShell = shellOutput(betaEvents);
    expect(betaShell).toContain("?? beta.md");
    expect(betaShell).toContain("+hello from beta");
    expect(betaShell).not.toMatch(/alpha/);

    // The file tools wrote into the worktrees; the main tree is untouched.
    const treeOf = (id: string) => h.env.services.files.treePath({ projectId: h.project.id, treeId: id });
    expect(readFileSync(path.join(treeOf(alpha.id), "greeting.txt"), "utf8")).toBe("hello from alpha\n");
    expect(readFileSync(path.join(treeOf(beta.id), "greeting.txt"), "utf8")).toBe("hello from beta\n");
    expect(existsSync(path.join(treeOf(alpha.id), "alpha.md"))).toBe(true);
    expect(readFileSync(path.join(main, "greeting.txt"), "utf8")).toBe("hello\n");
    expect(existsSync(path.join(main, "alpha.md"))).toBe(false);
    expect(git(main, "status", "--porcelain")).toBe("");

    // Source Control's procedures read the tree they are given.
    const alphaStatus = await h.caller.git.status({ projectId: h.project.id, tree: alpha.id });
    expect(alphaStatus).toMatchObject({ repository: true, branch: "tandem/alpha" });
    expect(alphaStatus.repository && alphaStatus.changed.map((f) => f.path)).toEqual(["greeting.txt"]);

    // Each turn's review diffs its own tree's checkpoint.
    const review = await h.caller.review.changes({ sessionId: alpha.id });
    expect(review.files.map((f) => f.path).sort()).toEqual(["alpha.md", "greeting.txt"]);

    const preview = await h.caller.tree.discardPreview({ sessionId: beta.id });
    expect(preview).toMatchObject({ branch: "tandem/second", commits: 0, uncommittedFiles: 2 });

    const first = await h.caller.tree.merge({ sessionId: alpha.id });
    expect(first).toMatchObject({ fastForward: true, branch: "tandem/alpha", base: "main" });
    expect(readFileSync(path.join(main, "greeting.txt"), "utf8")).toBe("hello from alpha\n");
    expect(git(main, "log", "-1", "--format=%an|%b")).toContain("Co-authored-by: Tandem agent");

    await expect(h.caller.tree.merge({ sessionId: beta.id })).rejects.toThrow(
      /Merging tandem\/second into main conflicts/,
    );
    expect(git(main, "status", "--porcelain")).toContain("UU greeting.txt");
    const status = await h.caller.git.status({ projectId: h.project.id });
    expect(status).toMatchObject({ repository: true, operation: "merge" });
    expect(readFileSync(path.join(main, "greeting.txt"), "utf8")).toMatch(
      /<<<<<<< HEAD\nhello from alpha\n=======\nhello from beta\n>>>>>>> tandem\/second/,
    );
    const trees2 = await h.caller.tree.list({ projectId: h.project.id });
    expect(trees2.find((t) => t.sessionId === alpha.id)?.state).toBe("merged");
    expect(trees2.find((t) => t.sessionId === beta.id)?.state).toBe("open");
  });

  it("discards a branch: worktree and branch go, the session's log stays", async () => {
    const gamma = await h.caller.tree.startSession({ projectId: h.project.id, title: "Gamma", base: "main" });
    const root = h.env.services.files.treePath({ projectId: h.project.id, treeId: gamma.id });
    expect(existsSync(path.join(root, "greeting.txt"))).toBe(true);
    await h.caller.tree.discard({ sessionId: gamma.id });
    expect(existsSync(root)).toBe(false);
    expect(git(main, "branch", "--list", "tandem/gamma")).toBe("");
    expect(git(main, "worktree", "list")).not.toContain(gamma.id);
    expect((await h.caller.session.get({ sessionId: gamma.id })).id).toBe(gamma.id);
    await expect(h.caller.tree.merge({ sessionId: gamma.id })).rejects.toThrow(/was discarded/);
    await expect(h.caller.fs.read({ projectId: h.project.id, tree: gamma.id, path: "greeting.txt" })).rejects.toThrow(
      /no such tree/,
    );

    // Deleting a branch session takes its worktree and branch with it.
    const delta = await h.caller.tree.startSession({ projectId: h.project.id, title: "Delta" });
    const deltaRoot = h.env.services.files.treePath({ projectId: h.project.id, treeId: delta.id });
    expect(await h.caller.fs.read({ projectId: h.project.id, tree: delta.id, path: "greeting.txt" })).toMatchObject({
      content: expect.stringMatching(/^hello/),
    });
    await h.caller.session.delete({ sessionId: delta.id });
    expect(existsSync(deltaRoot)).toBe(false);
    expect(git(main, "branch", "--list", "tandem/delta")).toBe("");
  });

  it("refuses a branch that exists, a base that does not, and a project without a repository", async () => {
    await h.caller.tree.startSession({ projectId: h.project.id, title: "Twice" });
    await expect(
      h.caller.tree.startSession({ projectId: h.project.id, title: "x", branch: "tandem/twice" }),
    ).rejects.toThrow(/exists already/);
    await expect(h.caller.tree.startSession({ projectId: h.project.id, base: "nope" })).rejects.toThrow(
      /no branch or commit 'nope'/,
    );
    const plain = await h.caller.project.create({ name: "No git" });
    expect(await h.caller.tree.options({ projectId: plain.id })).toMatchObject({ repository: false });
    await expect(h.caller.tree.startSession({ projectId: plain.id })).rejects.toThrow(/not a git repository/);
  });
});
