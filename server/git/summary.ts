import fs from "node:fs/promises";
import path from "node:path";
import type { Sandbox } from "@/server/sandbox/sandbox";
import { GitError } from "./errors";
import { runGit, text } from "./run";
import { parsePorcelainV2, type Porcelain } from "./status";

// The workspace's git state in a few facts (repository or not, branch, changed files), for the
// agent's system prompt. Read with `git status --porcelain=v2 --branch -z` (parsed in status.ts)
// through runGit: in the sandbox with no network, and with the config that keeps a repository's
// code from running (core.fsmonitor, pager, hooks) overridden on git's command line, as for every
// git command.

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
    const args = ["--no-optional-locks", "status", "--porcelain=v2", "--branch", "-z"];
    return summaryOf(parsePorcelainV2(text(await runGit(input.sandbox, args, { root: input.root, signal }))));
  } catch (error) {
    if (error instanceof GitError && error.code === "NOT_A_REPOSITORY") return { repository: false };
    // git missing, timed out or broken: the prompt leaves the git line out rather than guess.
    return null;
  }
}

function summaryOf(porcelain: Porcelain): GitSummary {
  const { branch, upstream, ahead, behind } = porcelain;
  return {
    repository: true,
    branch,
    upstream: upstream ? { name: upstream, ahead, behind } : null,
    changes: porcelain.entries.map((entry) => ({
      status: entry.kind === "conflicted" ? `${entry.xy} (conflict)` : entry.xy,
      path: entry.oldPath === undefined ? entry.path : `${entry.oldPath} -> ${entry.path}`,
    })),
  };
}
