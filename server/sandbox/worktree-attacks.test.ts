import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addWorktree, commitAll, mergeBranch } from "@/server/git/worktree";
import { describeSandboxed } from "@/server/test/sandbox-guard";
import { openWorkspace } from "@/server/workspace";
import { createShellSession, type ShellSession } from "@/server/workspace/shell-session";
import { defaultSandboxHost } from "./launcher";
import { createSandbox, type Sandbox } from "./sandbox";
import { treeRoots } from "./tree-roots";

// A session's shell attacks the other trees of its project: the main tree's files (committed or
// not), another session's worktree, by host path and through /workspace, reading and writing.
// Its sandbox shows its own worktree and the main repository's .git (what git needs), nothing
// else; a main tree whose .git was swapped for a link gets nothing bound at all.

const MAIN_SECRET = "main-tree-uncommitted-7d1e";
const OTHER_SECRET = "other-session-work-93ab";
let dataDir: string;
let roots: ReturnType<typeof treeRoots>;
let sandbox: Sandbox;
const shells: ShellSession[] = [];
let umask: number;

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "safe.directory=*", ...args], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" },
  });

async function shellIn(root: string, projectId: string) {
  const shell = createShellSession({ workspace: await openWorkspace(root), sessionId: "s", sandbox, projectId });
  shells.push(shell);
  return async (command: string) => {
    const result = await shell.run(command, { timeoutMs: 20_000, signal: new AbortController().signal });
    return { code: result.exitCode, out: `${result.stdout}${result.stderr}` };
  };
}

function project(projectId: string) {
  const main = roots.main(projectId);
  mkdirSync(main, { recursive: true });
  writeFileSync(path.join(main, "shared.txt"), "committed\n");
  git(main, "init", "-q", "-b", "main");
  git(main, "add", ".");
  git(main, "-c", "user.name=A", "-c", "user.email=a@example.com", "commit", "-qm", "first");
  writeFileSync(path.join(main, "draft.txt"), `${MAIN_SECRET}\n`);
  return main;
}

async function worktree(projectId: string, treeId: string) {
  const root = roots.worktree(projectId, treeId);
  mkdirSync(root, { recursive: true });
  await addWorktree(sandbox, { mainRoot: roots.main(projectId), root, branch: `tandem/${treeId}`, base: "main" });
  return root;
}

beforeAll(() => {
  // As the server does when it starts sandboxes as projects' uids (services.ts).
  umask = process.umask(0o002);
  dataDir = mkdtempSync(path.join(tmpdir(), "tandem-trees-attack-"));
  roots = treeRoots(dataDir);
  // The production host: the data dir masked, a per-project uid when the server is root.
  sandbox = createSandbox({
    host: defaultSandboxHost("bwrap", { dataDir, installDir: path.join(dataDir, "install") }),
  });
});
afterAll(async () => {
  process.umask(umask);
  await Promise.all(shells.map((s) => s.dispose()));
  rmSync(dataDir, { recursive: true, force: true });
});

describe("tree roots", () => {
  it("names a worktree's main tree only for a folder exactly two levels under worktrees/", () => {
    const r = treeRoots("/data");
    expect(r.mainOf("/data/worktrees/p1/s1")).toBe("/data/workspaces/p1");
    expect(r.mainOf("/data/worktrees/p1/s1/")).toBe("/data/workspaces/p1");
    for (const other of [
      "/data/worktrees/p1",
      "/data/worktrees/p1/s1/sub",
      "/data/worktrees/../workspaces/p1",
      "/data/workspaces/p1",
      "/elsewhere/worktrees/p1/s1",
      "/data/worktrees/p1/..",
    ])
      expect(r.mainOf(other)).toBeUndefined();
  });
});

describeSandboxed("a session's worktree sandbox", () => {
  it("sees its own tree and the repository's .git, not the main tree's files nor another session's tree", async () => {
    const main = project("p1");
    const mine = await worktree("p1", "s1");
    const other = await worktree("p1", "s2");
    writeFileSync(path.join(other, "work.txt"), `${OTHER_SECRET}\n`);
    const run = await shellIn(mine, "p1");

    // git works, and sees this tree's change only.
    writeFileSync(path.join(mine, "shared.txt"), "mine\n");
    const status = await run("git status --porcelain --branch");
    expect(status).toMatchObject({ code: 0 });
    expect(status.out).toContain("## tandem/s1");
    expect(status.out).toContain(" M shared.txt");
    expect(status.out).not.toContain("work.txt");
    expect((await run("pwd")).out.trim()).toBe("/workspace");

    for (const target of [
      path.join(main, "draft.txt"),
      path.join(main, "shared.txt"),
      path.join(other, "work.txt"),
      path.join(other, "shared.txt"),
      "/workspace/../draft.txt",
    ]) {
      const read = await run(`cat '${target}'`);
      expect(read.code, target).not.toBe(0);
      expect(read.out).not.toContain(MAIN_SECRET);
      expect(read.out).not.toContain(OTHER_SECRET);
      expect((await run(`echo planted > '${target}'`)).code, target).not.toBe(0);
    }
    // Everywhere the sandbox has anything of the data dir or writable: no trace of either.
    const places = `'${dataDir}' /workspace /tmp /home /run`;
    const listed = await run(
      `ls -a '${main}' '${other}' '${path.dirname(other)}' 2>&1; find ${places} -name '*.txt' 2>/dev/null`,
    );
    expect(listed.out).not.toContain("draft.txt");
    expect(listed.out).not.toContain("work.txt");
    expect((await run(`grep -rs -e ${OTHER_SECRET} -e ${MAIN_SECRET} ${places}; true`)).out).toBe("");

    // Nothing was written into the other trees.
    expect(git(main, "status", "--porcelain")).toBe("?? draft.txt\n");
    expect(git(other, "status", "--porcelain")).toBe("?? work.txt\n");
  });

  it("runs a repository's merge driver and hooks during Update from base only inside the worktree's sandbox", async () => {
    // The repository (which any writer or session shapes) plants a merge driver for every file and
    // hooks, each trying to write beside the data dir and to read the main tree's uncommitted file.
    const main = project("p3");
    const outside = mkdtempSync(path.join(tmpdir(), "tandem-merge-driver-"));
    const evil = (name: string) =>
      `sh -c 'echo ${name} > "${outside}/${name}"; cat "${main}/draft.txt" > ${name}-leaked 2>/dev/null; echo ran > ${name}-ran; true'`;
    writeFileSync(path.join(main, ".gitattributes"), "*.txt merge=evil\n");
    git(main, "add", ".gitattributes");
    git(main, "-c", "user.name=A", "-c", "user.email=a@example.com", "commit", "-qm", "attributes");
    const tree = await worktree("p3", "s1");
    // Both sides change shared.txt: the merge needs the driver.
    writeFileSync(path.join(main, "shared.txt"), "main's\n");
    git(main, "-c", "user.name=A", "-c", "user.email=a@example.com", "commit", "-qam", "main");
    writeFileSync(path.join(tree, "shared.txt"), "session's\n");
    // Planted last: this test's own git above runs on the host.
    git(main, "config", "merge.evil.driver", `${evil("driver")}; exit 1`);
    for (const hook of ["pre-merge-commit", "post-merge", "pre-commit", "post-commit"])
      writeFileSync(path.join(main, ".git/hooks", hook), `#!/bin/sh\n${evil(hook)}\n`, { mode: 0o755 });
    const author = { name: "B", email: "b@example.com" };
    await commitAll(sandbox, tree, { message: "session", author, hooks: false });
    await expect(
      mergeBranch(sandbox, tree, { branch: "main", author, message: "update", hooks: false }),
    ).rejects.toThrow();
    try {
      // It ran, inside: its evidence is in the worktree, nothing beside the data dir, no secret read.
      expect(existsSync(path.join(tree, "driver-ran"))).toBe(true);
      expect(readdirSync(outside)).toEqual([]);
      expect(readFileSync(path.join(tree, "driver-leaked"), "utf8")).not.toContain(MAIN_SECRET);
      // Hooks are off for what the server starts on its own.
      for (const hook of ["pre-merge-commit", "post-merge", "pre-commit", "post-commit"])
        expect(existsSync(path.join(tree, `${hook}-ran`)), hook).toBe(false);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it("binds nothing when the main tree's .git is a link, whatever it names", async () => {
    const main = project("p2");
    await worktree("p2", "s1");
    const secretDir = path.join(dataDir, "host-secret");
    mkdirSync(secretDir);
    writeFileSync(path.join(secretDir, "key"), "host-secret-55c0\n");
    // A project process swaps its .git for a link to a host folder.
    rmSync(path.join(main, ".git"), { recursive: true, force: true });
    symlinkSync(secretDir, path.join(main, ".git"));
    const run = await shellIn(roots.worktree("p2", "s1"), "p2");
    const read = await run(
      `cat '${path.join(main, ".git", "key")}' 2>/dev/null; ls -A '${path.join(main, ".git")}' 2>/dev/null`,
    );
    expect(read.out).toBe("");
    expect((await run("git status")).code).not.toBe(0);
  });
});
