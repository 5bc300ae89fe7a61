import { execSync } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { sandboxMode } from "@/server/test/sandbox-guard";
import { testSandbox } from "@/server/test/sandbox";
import { GitError } from "./errors";
import { gitRepository } from "./repository";

// A blob compresses a thousand to one, so a writer commits hundreds of megabytes of text for a
// few hundred kilobytes of the project's disk (`yes | head -c 300M | git hash-object -w --stdin`).
// Anyone who may read the project (a viewer too) then asks the diff editor for that file, and
// git's whole output was gathered in the server's memory: a few such requests at once, or a blob
// of gigabytes, take the server (every team's) down. Past a bound, git is stopped and the
// request refused.

let root: string;

beforeAll(() => {
  root = realpathSync(mkdtempSync(path.join(tmpdir(), "tandem-git-bomb-")));
  const git = (command: string) =>
    execSync(command, {
      cwd: root,
      shell: "/bin/bash",
      env: { PATH: "/usr/bin:/bin", HOME: root } as unknown as NodeJS.ProcessEnv,
    });
  git("git init -q -b main . && git config user.email a@b.c && git config user.name A");
  git("git commit -q --allow-empty -m start");
  const blob = git("yes aaaaaaaaaaaaaaa | head -c 300000000 | git hash-object -w --stdin").toString().trim();
  git(`git update-index --add --cacheinfo 100644,${blob},big.txt && git commit -q -m big`);
}, 120_000);

afterAll(() => rmSync(root, { recursive: true, force: true }));

it("refuses a file whose text at HEAD is larger than the server reads, without reading it whole", async () => {
  const repo = gitRepository(testSandbox(sandboxMode), root);
  const before = process.memoryUsage().rss;
  const error = await repo.show("big.txt", "HEAD").catch((e: unknown) => e);
  expect(error).toBeInstanceOf(GitError);
  expect((error as GitError).message).toMatch(/too large/);
  expect(process.memoryUsage().rss - before).toBeLessThan(200 * 1024 * 1024);
}, 120_000);

it("refuses a commit whose patch is larger than the server reads", async () => {
  const repo = gitRepository(testSandbox(sandboxMode), root);
  const oid = execSync("git rev-parse HEAD", { cwd: root }).toString().trim();
  await expect(repo.commitDetails(oid)).rejects.toThrow(/too large/);
}, 120_000);
