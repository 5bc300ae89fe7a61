import { z } from "zod";
import type { GitCommitSummary, GitStatus } from "@/lib/git-schemas";
import { GitError } from "@/server/git/errors";
import type { GitRepository } from "@/server/git/repository";
import { defineTool, type ToolContext } from "./define-tool";
import { ToolFailure, ok } from "./result";

// git: the workspace's repository, structured, through server/git (every git command in the
// project's sandbox, with the config that would run repository code overridden): status, diff,
// log, show and branch are reads; commit (staging the paths given, then committing what is
// staged) is a change, asked for as edits are. Pushing stays with Source Control, where the
// person's credential is attached to exactly their own push.

export type GitToolRepository = Pick<
  GitRepository,
  "isRepository" | "status" | "diff" | "log" | "commitDetails" | "branches" | "stage" | "commit"
>;

const MAX_DIFF_FILES = 50;

const DESCRIPTION = `The workspace's git repository, without the shell:
- status: branch, upstream, ahead/behind, staged, changed and untracked files.
- diff: the changes of one path, or of every changed file; staged: true for what is staged.
- log: the last commits (limit, default 20). show: one commit (its id) with its patch.
- branch: the local and remote branches, the current one marked.
- commit: stages \`paths\` (if given), then commits what is staged with \`message\`. It asks for approval. Pushing is done by people from Source Control.`;

const input = z.object({
  action: z.enum(["status", "diff", "log", "show", "branch", "commit"]),
  path: z.string().min(1).optional().describe("diff: one file (default: every changed file)."),
  staged: z.boolean().optional().describe("diff: the staged changes instead of the unstaged ones."),
  limit: z.number().int().min(1).max(200).optional().describe("log: how many commits (default 20)."),
  commit: z
    .string()
    .regex(/^[0-9a-f]{4,64}$/i, "a commit id (hex), as log shows it")
    .optional()
    .describe("show: the commit id."),
  message: z.string().min(1).max(10_000).optional().describe("commit: the commit message."),
  paths: z.array(z.string().min(1)).max(1_000).optional().describe("commit: files to stage first."),
});
type GitInput = z.infer<typeof input>;

const isCommit = (i: GitInput) => i.action === "commit";

export function gitTool(
  open: (ctx: ToolContext) => GitToolRepository,
  author: (ctx: ToolContext) => Promise<{ name: string; email: string }>,
) {
  return defineTool({
    name: "git",
    onDemand: "always",
    kind: "read",
    description: DESCRIPTION,
    input,
    describe: (i) =>
      i.action === "commit"
        ? `Commit: ${(i.message ?? "").split("\n")[0]!.slice(0, 60)}`
        : i.action === "diff"
          ? `Git diff${i.path ? ` ${i.path}` : ""}${i.staged ? " (staged)" : ""}`
          : i.action === "show"
            ? `Git show ${i.commit ?? ""}`
            : `Git ${i.action}`,
    mutates: isCommit,
    needsApproval: isCommit,
    async execute(i, ctx) {
      const repo = open(ctx);
      if (!(await repo.isRepository()))
        throw new ToolFailure("NOT_FOUND", "The workspace is not a git repository (no .git at its root).");
      try {
        switch (i.action) {
          case "status":
            return statusResult(await repo.status());
          case "diff":
            return await diffResult(ctx, repo, i);
          case "log":
            return logResult(await repo.log(i.limit ?? 20));
          case "show": {
            if (!i.commit) throw new ToolFailure("INVALID_INPUT", "show needs `commit`: a commit id from log.");
            const { commit, patch } = await repo.commitDetails(i.commit);
            const text = `${commitLine(commit)}\n\n${commit.body.trim()}\n\n${patch || "(no changes)"}`.trim();
            return ok(text, { kind: "text", text }, { oid: commit.oid });
          }
          case "branch": {
            const branches = await repo.branches();
            const text = branches
              .map(
                (b) =>
                  `${b.current ? "* " : "  "}${b.name}${b.remote ? " (remote)" : ""}${b.upstream ? ` -> ${b.upstream}` : ""}`,
              )
              .join("\n");
            return ok(text || "(no branches yet)", undefined, { branches: branches.length });
          }
          case "commit":
            return await commitResult(ctx, repo, i, await author(ctx));
        }
      } catch (error) {
        if (error instanceof GitError)
          throw new ToolFailure(error.code === "BAD_INPUT" ? "INVALID_INPUT" : "INTERNAL", error.message);
        throw error;
      }
    },
  });
}

function statusResult(s: GitStatus) {
  const files = (title: string, list: string[]) => (list.length ? [`${title}:`, ...list.map((p) => `  ${p}`)] : []);
  const change = (c: { path: string; oldPath?: string; letter: string }) =>
    `${c.letter} ${c.oldPath ? `${c.oldPath} -> ` : ""}${c.path}`;
  const lines = [
    `branch: ${s.branch ?? "(detached HEAD)"}${s.upstream ? `, tracking ${s.upstream} (ahead ${s.ahead}, behind ${s.behind})` : ""}`,
    ...files("staged", s.staged.map(change)),
    ...files("changed", s.changed.map(change)),
    ...files("untracked", s.untracked),
  ];
  if (!s.staged.length && !s.changed.length && !s.untracked.length) lines.push("nothing to commit, working tree clean");
  const text = lines.join("\n");
  return ok(
    text,
    { kind: "text", text },
    { staged: s.staged.length, changed: s.changed.length, untracked: s.untracked.length },
  );
}

async function diffResult(ctx: ToolContext, repo: GitToolRepository, i: GitInput) {
  const side = i.staged ? "index" : "worktree";
  let paths: string[];
  if (i.path) paths = [(await ctx.workspace.resolve(i.path)).requested];
  else {
    const status = await repo.status();
    paths = (i.staged ? status.staged : status.changed).map((c) => c.path);
  }
  const shown = paths.slice(0, MAX_DIFF_FILES);
  const patches = (await Promise.all(shown.map((p) => repo.diff(p, side)))).filter(Boolean);
  const more = paths.length > shown.length ? `\n[${paths.length - shown.length} more files; diff them by path.]` : "";
  const text =
    patches.join("") + more || `No ${i.staged ? "staged" : "unstaged"} changes${i.path ? ` in ${i.path}` : ""}.`;
  return ok(text, { kind: "text", text }, { files: patches.length });
}

const commitLine = (c: GitCommitSummary) => `${c.oid.slice(0, 10)} ${c.date.slice(0, 10)} ${c.author}: ${c.subject}`;

function logResult(commits: GitCommitSummary[]) {
  const text = commits.length ? commits.map(commitLine).join("\n") : "(no commits yet)";
  return ok(text, { kind: "text", text }, { commits: commits.length });
}

async function commitResult(
  ctx: ToolContext,
  repo: GitToolRepository,
  i: GitInput,
  author: { name: string; email: string },
) {
  if (!i.message) throw new ToolFailure("INVALID_INPUT", "commit needs `message`.");
  if (i.paths?.length) {
    const paths = await Promise.all(i.paths.map(async (p) => (await ctx.workspace.resolve(p)).requested));
    await repo.stage(paths);
  }
  const staged = (await repo.status()).staged;
  if (staged.length === 0)
    throw new ToolFailure(
      "INVALID_INPUT",
      "Nothing is staged: pass `paths` to stage files, or change something first.",
    );
  const oid = await repo.commit({ message: i.message, author });
  const text = `Committed ${staged.length} file(s) as ${oid.slice(0, 10)}: ${i.message.split("\n")[0]}\n${staged.map((c) => `  ${c.letter} ${c.path}`).join("\n")}`;
  return ok(text, { kind: "text", text }, { oid, files: staged.length });
}
