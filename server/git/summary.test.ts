import { execFileSync } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bwrapAvailable } from "@/server/sandbox/launcher";
import { testSandbox } from "@/server/test/sandbox";
import { gitSummary } from "./summary";

let root: string;
const git = (...args: string[]) =>
  execFileSync("git", ["-c", "user.name=T", "-c", "user.email=t@example.com", ...args], { cwd: root });

beforeAll(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "tandem-git-summary-")));
  await fs.chmod(root, 0o755); // the sandbox's own uid must be able to read it
  git("init", "-q", "-b", "feature/login");
  await fs.writeFile(path.join(root, "a.txt"), "one\n");
  await fs.writeFile(path.join(root, "old name.txt"), "moved\n");
  git("add", ".");
  git("commit", "-qm", "first");
  await fs.writeFile(path.join(root, "a.txt"), "two\n");
  git("mv", "old name.txt", "new name.txt");
  await fs.writeFile(path.join(root, "untracked.md"), "?\n");
});
afterAll(() => fs.rm(root, { recursive: true, force: true }));

describe("gitSummary", () => {
  it("reads branch and changed files, names with spaces and renames included", async () => {
    const summary = await gitSummary({ root, sandbox: testSandbox("none") });
    expect(summary).toEqual({
      repository: true,
      branch: "feature/login",
      upstream: null,
      changes: expect.arrayContaining([
        { status: ".M", path: "a.txt" },
        { status: "R.", path: "old name.txt -> new name.txt" },
        { status: "??", path: "untracked.md" },
      ]),
    });
    expect(summary?.repository && summary.changes).toHaveLength(3);
  });

  it("says when the workspace is not a repository", async () => {
    const plain = await fs.mkdtemp(path.join(os.tmpdir(), "tandem-git-none-"));
    try {
      expect(await gitSummary({ root: plain, sandbox: testSandbox("none") })).toEqual({ repository: false });
    } finally {
      await fs.rm(plain, { recursive: true, force: true });
    }
  });

  it("reads the same inside the bubblewrap sandbox, where the workspace belongs to another uid", async (ctx) => {
    if (!(await bwrapAvailable())) ctx.skip();
    const summary = await gitSummary({ root, sandbox: testSandbox("bwrap") });
    expect(summary).toMatchObject({ repository: true, branch: "feature/login" });
  });
});

describe("gitSummary in a folder inside another repository", () => {
  it("does not describe the outer repository", async () => {
    const inner = path.join(root, "nested-workspace");
    await fs.mkdir(inner);
    expect(await gitSummary({ root: inner, sandbox: testSandbox("none") })).toEqual({ repository: false });
    await fs.rm(inner, { recursive: true });
  });
});
