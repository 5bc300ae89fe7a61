import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import type { Sandbox } from "@/server/sandbox/sandbox";

// The workspace's git state in a few facts (repository or not, branch, changed files), for the
// agent's system prompt. Read with `git status --porcelain=v2 --branch -z`, run in the sandbox
// with no network, so a hostile repository config can do no more than any sandboxed command.

export type GitChange = { path: string; status: string };
export type GitSummary =
  | { repository: false }
  | {
      repository: true;
      /** null when HEAD is detached. */
      branch: string | null;
      upstream: { name: string; ahead: number; behind: number } | null;
      changes: GitChange[];
    };

const TIMEOUT_MS = 5_000;

export async function gitSummary(input: { root: string; sandbox: Sandbox; signal?: AbortSignal }): Promise<GitSummary | null> {
  // Only a repository at the workspace root counts: git would otherwise walk up and describe
  // whatever repository the server's data directory happens to sit in.
  if (!(await fs.lstat(path.join(input.root, ".git")).catch(() => null))) return { repository: false };
  // safe.directory: inside the sandbox the workspace belongs to another uid, which git would refuse.
  const launch = await input.sandbox.launch({
    workspaceRoot: input.root,
    command: ["git", "-c", "safe.directory=*", "--no-optional-locks", "status", "--porcelain=v2", "--branch", "-z"],
    source: { kind: "git", id: "summary" },
    network: "none",
    newSession: true,
    env: { GIT_PAGER: "cat" },
  });
  const { command } = launch;
  const run = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(command.file, command.args, { cwd: command.cwd, env: command.env as NodeJS.ProcessEnv, uid: command.uid, gid: command.gid, encoding: "utf8", timeout: TIMEOUT_MS, maxBuffer: 4 * 1024 * 1024, signal: input.signal }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  }).finally(() => launch.close());
  if (run.code === 0) return parsePorcelainV2(run.stdout);
  if (/not a git repository/i.test(run.stderr)) return { repository: false };
  // git missing, timed out or broken: the prompt leaves the git line out rather than guess.
  return null;
}

/** Parses `git status --porcelain=v2 --branch -z` (see git-status(1), "Porcelain Format Version 2"). */
export function parsePorcelainV2(output: string): GitSummary {
  const records = output.split("\0");
  let branch: string | null = null;
  let upstream: { name: string; ahead: number; behind: number } | null = null;
  const changes: GitChange[] = [];
  for (let i = 0; i < records.length; i++) {
    const record = records[i]!;
    if (!record) continue;
    if (record.startsWith("# branch.head ")) {
      const head = record.slice("# branch.head ".length);
      branch = head === "(detached)" ? null : head;
    } else if (record.startsWith("# branch.upstream ")) {
      upstream = { name: record.slice("# branch.upstream ".length), ahead: 0, behind: 0 };
    } else if (record.startsWith("# branch.ab ") && upstream) {
      const [ahead, behind] = record.slice("# branch.ab ".length).split(" ");
      upstream.ahead = Math.abs(Number(ahead));
      upstream.behind = Math.abs(Number(behind));
    } else if (record.startsWith("1 ")) {
      const fields = record.split(" ");
      changes.push({ status: fields[1]!, path: fields.slice(8).join(" ") });
    } else if (record.startsWith("2 ")) {
      const fields = record.split(" ");
      changes.push({ status: fields[1]!, path: `${records[i + 1]} -> ${fields.slice(9).join(" ")}` });
      i += 1; // the original path follows as its own record
    } else if (record.startsWith("u ")) {
      const fields = record.split(" ");
      changes.push({ status: `${fields[1]} (conflict)`, path: fields.slice(10).join(" ") });
    } else if (record.startsWith("? ")) {
      changes.push({ status: "??", path: record.slice(2) });
    }
  }
  return { repository: true, branch, upstream, changes };
}
