import fs from "node:fs/promises";
import path from "node:path";
import type { Sandbox } from "@/server/sandbox/sandbox";
import { GitError } from "./errors";
import { runGit, text } from "./run";

// The workspace's git state in a few facts (repository or not, branch, changed files), for the
// agent's system prompt. Read with `git status --porcelain=v2 --branch -z` through runGit: in the
// sandbox with no network, and with the config that keeps a repository's code from running
// (core.fsmonitor, pager, hooks) overridden on git's command line, as for every git command.

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

export async function gitSummary(input: {
  root: string;
  sandbox: Sandbox;
  signal?: AbortSignal;
}): Promise<GitSummary | null> {
  // Only a repository at the workspace root counts: git would otherwise walk up and describe
  // whatever repository the server's data directory happens to sit in.
  if (!(await fs.lstat(path.join(input.root, ".git")).catch(() => null))) return { repository: false };
  const timeout = AbortSignal.timeout(TIMEOUT_MS);
  const signal = input.signal ? AbortSignal.any([input.signal, timeout]) : timeout;
  try {
    return parsePorcelainV2(
      text(
        await runGit(input.sandbox, ["--no-optional-locks", "status", "--porcelain=v2", "--branch", "-z"], {
          root: input.root,
          signal,
        }),
      ),
    );
  } catch (error) {
    if (error instanceof GitError && error.code === "NOT_A_REPOSITORY") return { repository: false };
    // git missing, timed out or broken: the prompt leaves the git line out rather than guess.
    return null;
  }
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
