import { randomUUID } from "node:crypto";
import { branchForTitle, treeKey, type TreeRef } from "@/lib/trees";
import type { Db } from "@/server/db/client";
import { findSession, type AgentSessionRow } from "@/server/db/repositories/sessions";
import {
  createSessionTree,
  findSessionTree,
  listProjectTrees,
  setSessionTreePullRequest,
  setSessionTreeState,
  type SessionTreeRow,
} from "@/server/db/repositories/session-trees";
import type { AgentRuntime } from "@/server/agent/runtime";
import type { LanguageServers } from "@/server/language/language-servers";
import { GitError } from "@/server/git/errors";
import { gitRepository } from "@/server/git/repository";
import {
  addWorktree,
  checkNewBranch,
  commitAll,
  commitsAhead,
  currentBranch,
  forgetWorktree,
  mergeBranch,
  resolveBase,
} from "@/server/git/worktree";
import { parsePorcelainV2 } from "@/server/git/status";
import { runGit, text, type GitSandbox } from "@/server/git/run";
import type { ProjectCheckpoints } from "@/server/services/checkpoints";
import type { ProjectFiles } from "@/server/services/project-files";
import type { GitPerson, GitProject, ProjectGit, RemoteChoice } from "@/server/services/project-git";
import { forgeOf, pullRequestLink } from "@/server/git/pull-request";
import { restForge } from "@/server/git/forge-rest";
import type { Forges } from "@/lib/git-forges";
import type { GitProgress } from "@/lib/git-schemas";
import { diskUsageBytes } from "@/server/workspace/disk-usage";

// Sessions on their own branch (docs/git.md): a session's worktree is created with the session,
// merged into its base in the main tree, or discarded with its branch. Rows (session_tree) and
// folders (<data dir>/worktrees/...) are all there is, so a restart loses nothing. Everything that
// touches the main tree's repository runs through the project's git queue (project-git.ts).

export type TreeDeps = {
  db: Db;
  files: ProjectFiles;
  sandbox: GitSandbox;
  checkpoints: ProjectCheckpoints;
  agent: AgentRuntime;
  git: ProjectGit;
  /** The language servers, whose servers of a discarded worktree stop with it. */
  language: Pick<LanguageServers, "close">;
};
type Person = { id: string; name: string; email: string };

/** The trailer that credits the session's agent in the commits made of its work. */
const agentTrailer = (session: AgentSessionRow) =>
  `Co-authored-by: Tandem agent (${session.model}) <agent+${session.id}@tandem.invalid>`;

export const NOT_A_REPOSITORY =
  "This project is not a git repository, so sessions work in the main tree. Initialize git in Source Control (and commit once) to start sessions on branches of their own.";

export function createSessionTrees(deps: TreeDeps) {
  const { db, files, sandbox } = deps;
  const mainRoot = (projectId: string) => files.pathOf(projectId);

  async function openTree(sessionId: string): Promise<{ tree: SessionTreeRow; session: AgentSessionRow }> {
    const [tree, session] = await Promise.all([findSessionTree(db, sessionId), findSession(db, sessionId)]);
    if (!tree || !session) throw new GitError("NOT_FOUND", "This session has no branch of its own.");
    if (tree.state === "discarded")
      throw new GitError("BAD_INPUT", `The branch ${tree.branch} was discarded: its session's log stays readable.`);
    return { tree, session };
  }

  /** What a worktree takes on disk (its files; the objects it shares with the main tree are not counted). */
  const sizeOf = (tree: SessionTreeRow) =>
    tree.state === "discarded"
      ? Promise.resolve(null)
      : diskUsageBytes(files.treePath({ projectId: tree.projectId, treeId: tree.sessionId })).catch(() => null);

  /** Files the worktree holds that are not committed on its branch. */
  async function uncommitted(projectId: string, sessionId: string): Promise<string[]> {
    const root = files.treePath({ projectId, treeId: sessionId });
    const out = text(await runGit(sandbox, ["status", "--porcelain=v2", "-z", "--untracked-files=all"], { root }));
    return parsePorcelainV2(out).entries.map((e) => e.path);
  }

  return {
    /**
     * The tree `treeId` of the project (null: its main tree), or null when it is not an open
     * worktree of one of this project's sessions: a tree id from a client names nothing else.
     */
    async resolve(projectId: string, treeId: string | null): Promise<TreeRef | null> {
      if (!treeId) return { projectId, treeId: null };
      const tree = await findSessionTree(db, treeId);
      if (!tree || tree.projectId !== projectId || tree.state === "discarded") return null;
      return { projectId, treeId };
    },

    /** What "New session" offers: a branch of its own needs a repository with a commit. */
    async options(projectId: string) {
      const repo = gitRepository(sandbox, mainRoot(projectId));
      if (!(await repo.isRepository())) return { repository: false as const, reason: NOT_A_REPOSITORY };
      const head = await runGit(sandbox, ["rev-parse", "--verify", "-q", "HEAD"], {
        root: mainRoot(projectId),
        okCodes: [1],
      });
      if (head.code !== 0)
        return {
          repository: false as const,
          reason:
            "This repository has no commit yet, so there is nothing to branch from: commit once in Source Control.",
        };
      const branches = (await repo.branches()).filter((b) => !b.remote).map((b) => b.name);
      return { repository: true as const, branches, current: await currentBranch(sandbox, mainRoot(projectId)) };
    },

    /**
     * A new session on a new branch `branch` (default: tandem/<its title>) from `base` (default:
     * the branch checked out in the main tree), in a worktree of its own.
     */
    async start(input: {
      projectId: string;
      authorId: string;
      title?: string;
      model?: string;
      branch?: string;
      base?: string;
    }): Promise<AgentSessionRow> {
      const { projectId } = input;
      const root = mainRoot(projectId);
      if (!(await gitRepository(sandbox, root).isRepository()))
        throw new GitError("NOT_A_REPOSITORY", NOT_A_REPOSITORY);
      const branch = input.branch?.trim() || branchForTitle(input.title ?? "");
      const id = randomUUID();
      return deps.git.serial(projectId, async () => {
        const baseRef = input.base?.trim() || (await currentBranch(sandbox, root)) || "HEAD";
        const base = await resolveBase(sandbox, root, baseRef);
        await checkNewBranch(sandbox, root, branch);
        // The session first: a missing model is refused before any folder or branch exists.
        const session = await deps.agent.createSession({
          projectId,
          authorId: input.authorId,
          title: input.title,
          model: input.model,
          id,
          treeId: id,
        });
        const worktree = files.treePath({ projectId, treeId: id });
        try {
          await files.makeWorktreeFolder(projectId, id);
          await addWorktree(sandbox, { mainRoot: root, root: worktree, branch, base: base.commit });
          await createSessionTree(db, { sessionId: id, projectId, branch, baseRef: base.ref, baseCommit: base.commit });
        } catch (error) {
          await files.removeWorktree(projectId, id);
          await forgetWorktree(sandbox, root, branch).catch(() => undefined);
          await deps.agent.deleteSession(id);
          throw error;
        }
        return session;
      });
    },

    /** The project's trees with their sessions, each open worktree's size on disk. */
    async list(projectId: string) {
      const trees = await listProjectTrees(db, projectId);
      return Promise.all(trees.map(async (tree) => ({ ...tree, sizeBytes: await sizeOf(tree) })));
    },

    /** The tree a session works in (its own, or its parent's for a sub-agent), with its size; null: the main tree. */
    async ofSession(session: { projectId: string; treeId: string | null }) {
      if (!session.treeId) return null;
      const tree = await findSessionTree(db, session.treeId);
      if (!tree) return null;
      return { ...tree, sizeBytes: await sizeOf(tree) };
    },

    /** What discarding the session's branch loses: its commits not in the base, and uncommitted files. */
    async discardPreview(sessionId: string) {
      const { tree } = await openTree(sessionId);
      const [commits, files] = await Promise.all([
        commitsAhead(sandbox, mainRoot(tree.projectId), tree.baseCommit, tree.branch),
        uncommitted(tree.projectId, sessionId),
      ]);
      return { branch: tree.branch, commits, uncommittedFiles: files.length, merged: tree.state === "merged" };
    },

    /** Before a session is deleted: its own worktree and branch go with it (a sub-agent's parent keeps its). */
    async removeWith(session: { id: string; treeId: string | null }): Promise<void> {
      if (session.treeId !== session.id) return;
      const tree = await findSessionTree(db, session.id);
      if (!tree || tree.state === "discarded") return;
      await deps.agent.release(session.id);
      await this.discard(session.id);
    },

    /** Removes the worktree and its branch; the session and its log stay. */
    async discard(sessionId: string): Promise<void> {
      const { tree, session } = await openTree(sessionId);
      if (session.status === "running")
        throw new GitError("BAD_INPUT", "The session is running a turn: stop it first, then discard its branch.");
      await deps.agent.release(sessionId);
      await deps.language.close(treeKey({ projectId: tree.projectId, treeId: sessionId }));
      await deps.git.serial(tree.projectId, async () => {
        await files.removeWorktree(tree.projectId, sessionId);
        await forgetWorktree(sandbox, mainRoot(tree.projectId), tree.branch);
        await deps.checkpoints.removeTree(tree.projectId, sessionId);
        await setSessionTreeState(db, sessionId, "discarded");
      });
    },

    /**
     * "Update from <base>": commits what the session left, then merges the base's new commits into
     * the session's branch, in its worktree's own sandbox with the repository's hooks off (the
     * server starts it, not a person's commit). A conflict leaves the worktree mid-merge for Source
     * Control's merge editor in that tree (or the agent: the conflicted files are returned).
     */
    async update(sessionId: string, person: Person) {
      const { tree, session } = await openTree(sessionId);
      if (session.status === "running")
        throw new GitError(
          "BAD_INPUT",
          "The session is running a turn: wait for it to finish, then update its branch.",
        );
      const root = files.treePath({ projectId: tree.projectId, treeId: sessionId });
      const repo = gitRepository(sandbox, root);
      return deps.git.serial(tree.projectId, async () => {
        if ((await repo.status()).operation)
          throw new GitError(
            "CONFLICT",
            `${tree.branch} is in the middle of a merge: resolve its conflicts in Source Control (or ask the agent) and commit, or Abort.`,
          );
        const author = { name: person.name, email: person.email };
        await commitAll(sandbox, root, {
          message: `${session.title}\n\n${agentTrailer(session)}\n`,
          author,
          hooks: false,
        });
        const merge = {
          branch: tree.baseRef,
          author,
          message: `Merge ${tree.baseRef} into ${tree.branch}`,
          hooks: false,
        };
        try {
          const merged = await mergeBranch(sandbox, root, merge);
          return { ...merged, branch: tree.branch, base: tree.baseRef, conflicted: [] as string[] };
        } catch (error) {
          if (!(error instanceof GitError) || error.code !== "CONFLICT") throw error;
          const conflicted = (await repo.status()).conflicted.map((f) => f.path);
          return {
            fastForward: false,
            upToDate: false,
            commit: null,
            branch: tree.branch,
            base: tree.baseRef,
            conflicted,
          };
        }
      });
    },

    /**
     * "Push and open pull request": commits what the session left, pushes its branch through the
     * project's remote as Source Control's push does (the network step detached from the
     * repository, no hook runs), then opens a pull request into the base through the forge's API
     * (GitHub, GitLab or Gitea, with the person's token), records its link on the tree (the board's card shows
     * it) and posts it in the session. Another forge, or no token: the link to open one by hand.
     */
    async pushAndOpenPullRequest(
      project: GitProject,
      sessionId: string,
      person: GitPerson & RemoteChoice,
      input: {
        title?: string;
        body?: string;
        forges: (remote: URL) => Forges;
        signal: AbortSignal;
        onProgress: (p: GitProgress) => void;
        /** false: push only (the branch is a pull request's already). */
        open?: boolean;
      },
    ) {
      const { tree, session } = await openTree(sessionId);
      if (session.status === "running")
        throw new GitError("BAD_INPUT", "The session is running a turn: wait for it to finish, then push its branch.");
      const author = { name: person.name, email: person.email };
      await deps.git.serial(tree.projectId, () =>
        commitAll(sandbox, files.treePath({ projectId: tree.projectId, treeId: sessionId }), {
          message: `${session.title}\n\n${agentTrailer(session)}\n`,
          author,
        }),
      );
      const { remote } = await deps.git.remote(project, person, "push", {
        signal: input.signal,
        onProgress: input.onProgress,
        branch: tree.branch,
      });
      const forges = input.forges(new URL(remote));
      const createUrl = pullRequestLink(remote, tree.branch, forges);
      const commit = text(
        await runGit(sandbox, ["rev-parse", `refs/heads/${tree.branch}`], { root: mainRoot(tree.projectId) }),
      ).trim();
      const pushed = { branch: tree.branch, base: tree.baseRef, createUrl, commit };
      if (input.open === false || !restForge(forgeOf(new URL(remote), forges)))
        return { ...pushed, pullRequest: null, note: null };
      const title = input.title?.trim() || session.title;
      try {
        const opened = await deps.git.openPullRequest(project, person, {
          title,
          body: input.body ?? "",
          base: tree.baseRef,
          head: tree.branch,
          forges: input.forges,
        });
        await setSessionTreePullRequest(db, sessionId, opened.url);
        await deps.agent.log.append(
          sessionId,
          "pull_request_opened",
          { ...opened, title, by: { id: person.id, name: person.name } },
          person.id,
        );
        return { ...pushed, pullRequest: opened, note: null };
      } catch (error) {
        // Pushed all the same: the person opens it by hand (an ssh key pushes; only a token opens).
        if (error instanceof GitError && error.code === "AUTH_FAILED")
          return { ...pushed, pullRequest: null, note: error.message };
        throw error;
      }
    },

    /**
     * Commits what the session left uncommitted on its branch, then merges the branch into its base
     * in the main tree (which must have the base checked out): a fast-forward when it can, else a
     * merge commit. A conflict leaves the main tree mid-merge for Source Control's merge editor.
     */
    async merge(sessionId: string, person: Person) {
      const { tree, session } = await openTree(sessionId);
      if (session.status === "running")
        throw new GitError("BAD_INPUT", "The session is running a turn: wait for it to finish, then merge.");
      const root = mainRoot(tree.projectId);
      return deps.git.serial(tree.projectId, async () => {
        const checkedOut = await currentBranch(sandbox, root);
        if (checkedOut !== tree.baseRef)
          throw new GitError(
            "BAD_INPUT",
            `The main tree has ${checkedOut ?? "a detached HEAD"} checked out, not ${tree.baseRef}: switch it to ${tree.baseRef} in Source Control, then merge.`,
          );
        const status = await gitRepository(sandbox, root).status();
        if (status.operation)
          throw new GitError(
            "CONFLICT",
            `The main tree is in the middle of a ${status.operation}: finish or abort it in Source Control first.`,
          );
        const author = { name: person.name, email: person.email };
        await commitAll(sandbox, files.treePath({ projectId: tree.projectId, treeId: sessionId }), {
          message: `${session.title}\n\n${agentTrailer(session)}\n`,
          author,
        });
        try {
          const merged = await mergeBranch(sandbox, root, {
            branch: tree.branch,
            author,
            message: `Merge branch '${tree.branch}' (${session.title})`,
          });
          await setSessionTreeState(db, sessionId, "merged");
          return { ...merged, branch: tree.branch, base: tree.baseRef };
        } catch (error) {
          if (error instanceof GitError && error.code === "CONFLICT")
            throw new GitError(
              "CONFLICT",
              `Merging ${tree.branch} into ${tree.baseRef} conflicts: the main tree is mid-merge. Resolve the files in Source Control's merge editor and commit, or Abort.`,
              error.detail,
            );
          throw error;
        }
      });
    },
  };
}

export type SessionTrees = ReturnType<typeof createSessionTrees>;
