import path from "node:path";
import { GitError } from "./errors";
import type { Author } from "./repository";
import { runGit, text, type GitSandbox } from "./run";

// A session's branch in its own worktree (docs/git.md, "Sessions on their own branch"). Every
// command runs through the sandbox like the rest of server/git, with the repository's hooks off
// (run.ts) except for the commit and merge a person starts. `git worktree add` runs in the new
// worktree's own sandbox (as the project's identity, the main tree's `.git` bound at its host
// path, launcher.ts), so the checkout writes nothing the session's processes could not.

export type WorktreeBase = { ref: string; commit: string };

/** The commit `ref` names in the main tree's repository, and the branch checked out there (null: detached). */
export async function resolveBase(sandbox: GitSandbox, mainRoot: string, ref: string): Promise<WorktreeBase> {
  if (ref.startsWith("-") || !ref.trim()) throw new GitError("BAD_INPUT", "Choose a branch or commit to start from.");
  const result = await runGit(sandbox, ["rev-parse", "--verify", "-q", `${ref}^{commit}`], {
    root: mainRoot,
    okCodes: [1],
  });
  if (result.code !== 0) throw new GitError("NOT_FOUND", `There is no branch or commit '${ref}' to start from.`);
  return { ref, commit: text(result).trim() };
}

/** The branch checked out in the main tree, or null when HEAD is detached or has no commit yet. */
export async function currentBranch(sandbox: GitSandbox, mainRoot: string): Promise<string | null> {
  const result = await runGit(sandbox, ["symbolic-ref", "-q", "--short", "HEAD"], { root: mainRoot, okCodes: [1] });
  return result.code === 0 ? text(result).trim() || null : null;
}

/** Refuses a name git would not take for a new branch, and one that exists already. */
export async function checkNewBranch(sandbox: GitSandbox, mainRoot: string, branch: string): Promise<void> {
  const format = await runGit(sandbox, ["check-ref-format", "--branch", branch], { root: mainRoot, okCodes: [1, 128] });
  if (format.code !== 0 || branch.startsWith("-"))
    throw new GitError("BAD_INPUT", `'${branch}' is not a valid branch name.`);
  const exists = await runGit(sandbox, ["rev-parse", "--verify", "-q", `refs/heads/${branch}`], {
    root: mainRoot,
    okCodes: [1],
  });
  if (exists.code === 0) throw new GitError("BAD_INPUT", `A branch '${branch}' exists already: choose another name.`);
}

/** Checks out a new branch `branch` at `base` into `root`, an empty folder the server made. */
export async function addWorktree(
  sandbox: GitSandbox,
  input: { mainRoot: string; root: string; branch: string; base: string },
): Promise<void> {
  const gitDir = path.join(input.mainRoot, ".git");
  await runGit(
    sandbox,
    [`--git-dir=${gitDir}`, "worktree", "add", "--quiet", "-b", input.branch, input.root, input.base],
    {
      root: input.root,
    },
  );
}

/** After the server removed a worktree's folder: git forgets it, and the branch goes too. */
export async function forgetWorktree(sandbox: GitSandbox, mainRoot: string, branch: string): Promise<void> {
  await runGit(sandbox, ["worktree", "prune"], { root: mainRoot });
  await runGit(sandbox, ["branch", "-D", "--", branch], { root: mainRoot, okCodes: [1] });
}

/**
 * Commits everything the worktree holds that is not committed yet, as `author`; false when nothing
 * was. `hooks`: false when the server starts it on its own (Update from base), not a person's commit.
 */
export async function commitAll(
  sandbox: GitSandbox,
  root: string,
  input: { message: string; author: Author; hooks?: boolean },
): Promise<boolean> {
  await runGit(sandbox, ["add", "--all"], { root });
  const staged = await runGit(sandbox, ["diff", "--cached", "--quiet"], { root, okCodes: [1] });
  if (staged.code === 0) return false;
  await runGit(sandbox, [...identity(input.author), "commit", "--quiet", "--no-edit", "-F", "-"], {
    root,
    input: input.message,
    hooks: input.hooks ?? true,
  });
  return true;
}

/** How many commits `branch` has that `base` has not: what discarding the branch loses. */
export async function commitsAhead(sandbox: GitSandbox, mainRoot: string, base: string, branch: string) {
  const count = await runGit(sandbox, ["rev-list", "--count", `${base}..${branch}`, "--"], { root: mainRoot });
  return Number(text(count).trim()) || 0;
}

/**
 * Merges `branch` into the branch checked out in the tree at `mainRoot` (the main tree, or a
 * session's worktree taking its base's new commits): a fast-forward when it can, else a merge
 * commit. A conflict leaves the tree mid-merge, as Source Control's merge editor expects;
 * uncommitted changes in the way make git refuse before it touches anything. `hooks`: as for
 * commitAll.
 */
export async function mergeBranch(
  sandbox: GitSandbox,
  mainRoot: string,
  input: { branch: string; author: Author; message: string; hooks?: boolean },
): Promise<{ fastForward: boolean; upToDate: boolean; commit: string }> {
  const before = text(await runGit(sandbox, ["rev-parse", "HEAD"], { root: mainRoot })).trim();
  await runGit(sandbox, [...identity(input.author), "merge", "--no-edit", "-m", input.message, "--", input.branch], {
    root: mainRoot,
    hooks: input.hooks ?? true,
  });
  const after = text(await runGit(sandbox, ["rev-parse", "HEAD"], { root: mainRoot })).trim();
  const parents = text(await runGit(sandbox, ["rev-list", "--parents", "-n1", after], { root: mainRoot }))
    .trim()
    .split(" ");
  // A fast-forward leaves HEAD on the branch's own commit (its parents are not the old HEAD plus one).
  return { fastForward: after === before || parents.length === 2, upToDate: after === before, commit: after };
}

const identity = (author: Author) =>
  [`user.name=${author.name}`, `user.email=${author.email}`].flatMap((c) => ["-c", c]);
