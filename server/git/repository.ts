import { access } from "node:fs/promises";
import path from "node:path";
import type { GitCommitSummary, GitStatus } from "@/lib/git-schemas";
import { GitError } from "./errors";
import { hunkPatch } from "./hunks";
import { runGit, text, type GitSandbox } from "./run";
import { parsePorcelainV2, statusOf } from "./status";

export type Author = { name: string; email: string };
export type Side = "worktree" | "index";

const LOG_FORMAT = "%H%x1f%P%x1f%an%x1f%ae%x1f%aI%x1f%s%x1f%b%x1e";

/**
 * The local git operations on one tree; every command runs in the project's sandbox. A session's
 * worktree keeps its HEAD and merge state in the main repository's .git/worktrees/<its folder's
 * name> (worktree.ts): found by where the server put the trees (server/sandbox/tree-roots.ts),
 * never by the worktree's own .git file, which is the project's to change.
 */
export function gitRepository(sandbox: GitSandbox, root: string) {
  const main = sandbox.host.trees?.mainOf(root);
  const gitDir = main ? path.join(main, ".git", "worktrees", path.basename(root)) : path.join(root, ".git");
  const git = (args: string[], options: { input?: string; okCodes?: number[]; hooks?: boolean } = {}) =>
    runGit(sandbox, args, { root, ...options });
  const exists = (p: string) =>
    access(path.join(gitDir, p)).then(
      () => true,
      () => false,
    );

  async function isRepository(): Promise<boolean> {
    return exists("HEAD");
  }

  async function requireRepository() {
    if (!(await isRepository()))
      throw new GitError("NOT_A_REPOSITORY", "This project is not a git repository. Initialize one first.");
  }

  return {
    root,
    isRepository,

    async init(): Promise<void> {
      await git(["init", "--quiet"]);
    },

    async status(): Promise<GitStatus> {
      await requireRepository();
      const out = text(await git(["status", "--porcelain=v2", "--branch", "-z", "--untracked-files=all"]));
      const operation = (await exists("MERGE_HEAD"))
        ? "merge"
        : (await exists("rebase-merge")) || (await exists("rebase-apply"))
          ? "rebase"
          : null;
      return { ...statusOf(parsePorcelainV2(out)), operation };
    },

    /** Ignored files and folders (a folder once, not each file inside), for the explorer's decorations. */
    async ignored(): Promise<string[]> {
      await requireRepository();
      const out = text(await git(["ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"]));
      return out
        .split("\0")
        .filter(Boolean)
        .map((p) => p.replace(/\/$/, ""));
    },

    /** The paths the index records as executable (mode 100755). */
    async executablePaths(): Promise<string[]> {
      await requireRepository();
      const out = text(await git(["ls-files", "--stage", "-z"]));
      return out
        .split("\0")
        .filter((line) => line.startsWith("100755 "))
        .map((line) => line.slice(line.indexOf("\t") + 1));
    },

    /** A file's text at HEAD ("HEAD"), in the index ("index"), or null when it is not there. */
    async show(filePath: string, at: "HEAD" | "index"): Promise<string | null> {
      await requireRepository();
      const spec = at === "HEAD" ? `HEAD:${filePath}` : `:${filePath}`;
      const result = await git(["cat-file", "blob", spec], { okCodes: [128] });
      return result.code === 0 ? text(result) : null;
    },

    /** The unified diff of one file: worktree against index, or index against HEAD. */
    async diff(filePath: string, side: Side): Promise<string> {
      await requireRepository();
      const args =
        side === "index"
          ? ["diff", "--cached", "--no-ext-diff", "--no-textconv", "--", filePath]
          : ["diff", "--no-ext-diff", "--no-textconv", "--", filePath];
      return text(await git(args));
    },

    async stage(paths: string[]): Promise<void> {
      await requireRepository();
      await git(["add", "--all", "--", ...paths]);
    },

    async unstage(paths: string[]): Promise<void> {
      await requireRepository();
      const hasHead = (await git(["rev-parse", "--verify", "-q", "HEAD"], { okCodes: [1] })).code === 0;
      if (hasHead) await git(["reset", "-q", "HEAD", "--", ...paths]);
      else await git(["rm", "-q", "--cached", "-r", "--", ...paths]);
    },

    /** Drops a file's unstaged changes; an untracked file is deleted. */
    async discard(paths: string[]): Promise<void> {
      await requireRepository();
      const untracked = text(await git(["ls-files", "-z", "--others", "--exclude-standard", "--", ...paths]))
        .split("\0")
        .filter(Boolean);
      const tracked = paths.filter((p) => !untracked.includes(p));
      if (tracked.length) await git(["checkout", "-q", "--", ...tracked]);
      if (untracked.length) await git(["clean", "-q", "-f", "--", ...untracked]);
    },

    /**
     * One hunk of a file's diff: staged (`stage`, from the worktree's diff), unstaged (`unstage`,
     * from the index's diff) or dropped from the worktree (`discard`). `expectedDiff` is the diff
     * the person looked at: if the file changed since, nothing is applied.
     */
    async applyHunk(input: {
      path: string;
      hunkIndex: number;
      action: "stage" | "unstage" | "discard";
      expectedDiff: string;
    }): Promise<void> {
      await requireRepository();
      const side: Side = input.action === "unstage" ? "index" : "worktree";
      const current = await this.diff(input.path, side);
      if (current !== input.expectedDiff)
        throw new GitError("CONFLICT", `'${input.path}' changed since you looked at it. Look at its changes again.`);
      const patch = hunkPatch(current, input.hunkIndex);
      if (!patch) throw new GitError("BAD_INPUT", `'${input.path}' has no hunk ${input.hunkIndex + 1}.`);
      const args =
        input.action === "stage"
          ? ["apply", "--cached"]
          : input.action === "unstage"
            ? ["apply", "--cached", "--reverse"]
            : ["apply", "--reverse"];
      await git([...args, "--whitespace=nowarn", "-"], { input: patch });
    },

    /** Commits what is staged, as `author`; hooks run, in the sandbox, as they would for the person. */
    async commit(input: { message: string; author: Author; amend?: boolean }): Promise<string> {
      await requireRepository();
      const identity = [`user.name=${input.author.name}`, `user.email=${input.author.email}`].flatMap((c) => ["-c", c]);
      const args = [
        ...identity,
        "commit",
        "--quiet",
        "--no-edit",
        "--cleanup=strip",
        "-F",
        "-",
        ...(input.amend ? ["--amend"] : []),
      ];
      await git(args, { input: input.message, hooks: true });
      return text(await git(["rev-parse", "HEAD"])).trim();
    },

    async lastCommitMessage(): Promise<string | null> {
      await requireRepository();
      const result = await git(["log", "-1", "--format=%B"], { okCodes: [128] });
      return result.code === 0 ? text(result).trim() : null;
    },

    async headDate(): Promise<Date | null> {
      const result = await git(["log", "-1", "--format=%cI"], { okCodes: [128] });
      return result.code === 0 && text(result).trim() ? new Date(text(result).trim()) : null;
    },

    async branches(): Promise<Array<{ name: string; remote: boolean; current: boolean; upstream: string | null }>> {
      await requireRepository();
      const out = text(
        await git(["for-each-ref", "--format=%(refname)%00%(HEAD)%00%(upstream:short)", "refs/heads", "refs/remotes"]),
      );
      return out
        .split("\n")
        .filter(Boolean)
        .map((line) => {
          const [ref, head, upstream] = line.split("\0") as [string, string, string];
          const remote = ref.startsWith("refs/remotes/");
          return {
            name: ref.replace(/^refs\/(heads|remotes)\//, ""),
            remote,
            current: head === "*",
            upstream: upstream || null,
          };
        })
        .filter((b) => !b.name.endsWith("/HEAD"));
    },

    async createBranch(name: string, switchTo: boolean): Promise<void> {
      await requireRepository();
      await git(switchTo ? ["switch", "-c", name] : ["branch", name]);
    },

    /** Switches branches; git refuses (WOULD_OVERWRITE) when uncommitted changes would be lost. */
    async switchBranch(name: string): Promise<void> {
      await requireRepository();
      const local = (await git(["rev-parse", "--verify", "-q", `refs/heads/${name}`], { okCodes: [1] })).code === 0;
      await git(local ? ["switch", "--no-guess", name] : ["switch", "--track", `origin/${name}`], { hooks: true });
    },

    async log(limit: number): Promise<GitCommitSummary[]> {
      await requireRepository();
      const result = await git(["log", `-n${limit}`, `--format=${LOG_FORMAT}`], { okCodes: [128] });
      if (result.code !== 0) return [];
      return parseLog(text(result));
    },

    /** A commit and its changes (the patch of each file against its first parent). */
    async commitDetails(oid: string): Promise<{ commit: GitCommitSummary; patch: string }> {
      await requireRepository();
      if (!/^[0-9a-f]{4,64}$/i.test(oid)) throw new GitError("BAD_INPUT", "That is not a commit id.");
      const out = text(
        await git(["show", "--no-ext-diff", "--no-textconv", "--first-parent", `--format=${LOG_FORMAT}`, oid]),
      );
      const split = out.indexOf("\x1e");
      return { commit: parseLog(out.slice(0, split + 1))[0]!, patch: out.slice(split + 1).replace(/^\n+/, "") };
    },

    /** Ends a merge whose conflicts are resolved and staged, or gives it up. */
    async finishMerge(action: "continue" | "abort", author: Author): Promise<void> {
      const identity = [`user.name=${author.name}`, `user.email=${author.email}`].flatMap((c) => ["-c", c]);
      if (await exists("MERGE_HEAD"))
        await git([...identity, "merge", action === "continue" ? "--continue" : "--abort"], { hooks: true });
      else await git([...identity, "rebase", action === "continue" ? "--continue" : "--abort"], { hooks: true });
    },

    requireRepository,

    /** origin's URL as written in the repository's config (no insteadOf rule applied), or null. */
    async originUrl(): Promise<string | null> {
      const result = await git(["config", "--get", "remote.origin.url"], { okCodes: [1] });
      return text(result).trim() || null;
    },

    /** Points origin at `url` (adding it, with git's default fetch refspec, when there is none). */
    async setOrigin(url: string): Promise<void> {
      const has = (await git(["config", "--get", "remote.origin.url"], { okCodes: [1] })).code === 0;
      await git(has ? ["remote", "set-url", "origin", url] : ["remote", "add", "origin", url]);
    },
  };
}

function parseLog(out: string): GitCommitSummary[] {
  return out
    .split("\x1e")
    .map((r) => r.replace(/^\n/, ""))
    .filter(Boolean)
    .map((record) => {
      const [oid, parents, author, email, date, subject, body] = record.split("\x1f") as string[];
      return {
        oid: oid!,
        parents: parents ? parents.split(" ") : [],
        author: author!,
        email: email!,
        date: date!,
        subject: subject!,
        body: (body ?? "").trim(),
      };
    });
}

export type GitRepository = ReturnType<typeof gitRepository>;
