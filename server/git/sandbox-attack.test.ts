import { execFileSync } from "node:child_process";
import { chmod, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bwrapAvailable } from "@/server/sandbox/launcher";
import { testSandbox } from "@/server/test/sandbox";
import { gitRepository } from "./repository";
import { gitSummary } from "./summary";

// A repository built to attack the server: a hook, a clean/smudge filter, core.fsmonitor and
// core.pager, each trying to write outside the workspace and to copy a server file into it.
// Every git command runs in the project's sandbox, so what runs stays inside.
const SECRET = "server-secret-4f9c2a";
let base: string;
let root: string;
let outside: string;
let secretFile: string;

beforeAll(async () => {
  base = await mkdtemp(path.join(tmpdir(), "tandem-attack-"));
  root = path.join(base, "workspaces", "project");
  outside = path.join(base, "outside");
  secretFile = path.join(base, "auth-secret");
  await mkdir(root, { recursive: true });
  await mkdir(outside);
  await writeFile(secretFile, SECRET);
  const git = (...args: string[]) =>
    execFileSync("git", args, {
      cwd: root,
      env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" },
    });
  git("init", "--quiet", "--initial-branch=main");
  const evil = (name: string) =>
    `#!/bin/sh\necho ${name} > "${outside}/${name}-escaped"\necho ${name} > /root/${name}-escaped 2>/dev/null\ncat "${secretFile}" /etc/shadow > "${root}/${name}-leaked" 2>/dev/null\necho ran > "${root}/${name}-ran"\n`;
  for (const name of ["hook", "filter", "fsmonitor", "pager"]) {
    await writeFile(path.join(root, `.git/${name}.sh`), evil(name));
    await chmod(path.join(root, `.git/${name}.sh`), 0o755);
  }
  await writeFile(path.join(root, ".git/hooks/pre-commit"), `#!/bin/sh\n"${root}/.git/hook.sh"\n`);
  await chmod(path.join(root, ".git/hooks/pre-commit"), 0o755);
  git("config", "filter.evil.clean", `sh -c '"${root}/.git/filter.sh" >/dev/null; cat'`);
  git("config", "filter.evil.smudge", `sh -c '"${root}/.git/filter.sh" >/dev/null; cat'`);
  git("config", "filter.evil.required", "true");
  git("config", "core.fsmonitor", `${root}/.git/fsmonitor.sh`);
  git("config", "core.pager", `${root}/.git/pager.sh`);
  await writeFile(path.join(root, ".gitattributes"), "*.txt filter=evil\n");
  await writeFile(path.join(root, "a.txt"), "hello\n");
});
afterAll(() => rm(base, { recursive: true, force: true }));

describe.runIf(await bwrapAvailable())("an attacking repository", () => {
  it("runs nothing that reaches outside the workspace or reads the server's files", async () => {
    const repo = gitRepository(testSandbox("bwrap"), root);
    await repo.status();
    await repo.stage(["a.txt", ".gitattributes"]);
    await repo.commit({ message: "attack", author: { name: "A", email: "a@example.com" } });
    await writeFile(path.join(root, "a.txt"), "changed\n");
    await repo.diff("a.txt", "worktree");
    await repo.discard(["a.txt"]);
    await repo.log(5);

    // The hook and the filter did run (this is a real attack), inside the sandbox...
    expect(existsSync(path.join(root, "hook-ran"))).toBe(true);
    expect(existsSync(path.join(root, "filter-ran"))).toBe(true);
    // ...fsmonitor and the pager never run at all...
    expect(existsSync(path.join(root, "fsmonitor-ran"))).toBe(false);
    expect(existsSync(path.join(root, "pager-ran"))).toBe(false);
    // ...and nothing got out, nor any server file in.
    expect(await readdir(outside)).toEqual([]);
    for (const name of ["hook", "filter", "fsmonitor", "pager"])
      expect(existsSync(`/root/${name}-escaped`)).toBe(false);
    for (const name of ["hook", "filter"]) {
      const leaked = await readFile(path.join(root, `${name}-leaked`), "utf8").catch(() => "");
      expect(leaked).not.toContain(SECRET);
      expect(leaked).not.toMatch(/root:/);
    }
  });

  it("the turn-start git summary never runs the repository's core.fsmonitor", async () => {
    // An index to refresh, as a repository has once anything is staged (fsmonitor is asked then).
    execFileSync("git", ["-c", "core.fsmonitor=false", "-c", "filter.evil.clean=cat", "add", "a.txt"], {
      cwd: root,
      env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" },
    });
    const summary = await gitSummary({ root, sandbox: testSandbox("bwrap") });
    expect(summary).toMatchObject({ repository: true, branch: "main" });
    expect(existsSync(path.join(root, "fsmonitor-ran"))).toBe(false);
  });
});
