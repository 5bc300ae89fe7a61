import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { branchName, gitPath, gitUrl, operationId, pullMode } from "@/lib/git-schemas";
import { ADMIN_ROLES } from "@/server/api/access";
import type { ProjectRole } from "@/server/db/repositories/projects";
import {
  projectAdminProcedure,
  protectedProcedure,
  router,
  workspaceMutationProcedure,
  workspaceProcedure,
} from "@/server/api/trpc";
import {
  deleteKnownHostKeys,
  getGitForge,
  getPullMode,
  listProjectKnownHostKeys,
  setGitForge,
  setPullMode,
} from "@/server/db/repositories/git-credentials";
import { GitError, type GitErrorCode } from "@/server/git/errors";
import { hunkCount } from "@/server/git/hunks";
import { findSession } from "@/server/db/repositories/sessions";
import { hostKeyFingerprint } from "@/server/git/ssh-key";
import { FORGE_KINDS, forgeOf, pullRequestLink, withProjectForge } from "@/server/git/pull-request";
import { isWorkspaceError } from "@/server/workspace";

const TRPC_CODES: Record<GitErrorCode, TRPCError["code"]> = {
  AUTH_FAILED: "UNPROCESSABLE_CONTENT",
  NOT_FOUND: "NOT_FOUND",
  HOST_NOT_ALLOWED: "UNPROCESSABLE_CONTENT",
  HOST_KEY_CHANGED: "UNPROCESSABLE_CONTENT",
  DISK_FULL: "INTERNAL_SERVER_ERROR",
  CANCELLED: "CLIENT_CLOSED_REQUEST",
  CONFLICT: "CONFLICT",
  WOULD_OVERWRITE: "CONFLICT",
  NOT_A_REPOSITORY: "PRECONDITION_FAILED",
  REJECTED: "CONFLICT",
  BAD_INPUT: "BAD_REQUEST",
  TOO_LARGE: "PAYLOAD_TOO_LARGE",
  GIT_UNAVAILABLE: "INTERNAL_SERVER_ERROR",
  FAILED: "INTERNAL_SERVER_ERROR",
};

/** Git's refusals keep their words; the code tells the page what kind of refusal it was. */
export async function gitCall<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    // git's own last lines help with most failures; a conflict is listed in the panel instead.
    if (error instanceof GitError) {
      const detail = error.detail && error.code !== "CONFLICT" ? `\n${error.detail}` : "";
      throw new TRPCError({ code: TRPC_CODES[error.code], message: `${error.message}${detail}`, cause: error });
    }
    if (isWorkspaceError(error)) throw new TRPCError({ code: "BAD_REQUEST", message: error.message, cause: error });
    throw error;
  }
}

const paths = z.object({ paths: z.array(gitPath).min(1).max(1000) });
const side = z.enum(["worktree", "index"]);
const remoteInput = z.object({ operationId });
const person = (user: { id: string; name: string; email: string }) => ({
  id: user.id,
  name: user.name,
  email: user.email,
});
/** The caller, and whether they may choose the project's remote (a project admin), which their first fetch, pull or push may record. */
const remotePerson = (ctx: { user: { id: string; name: string; email: string }; role: ProjectRole }) => ({
  ...person(ctx.user),
  mayChooseRemote: ADMIN_ROLES.includes(ctx.role),
});

export const gitRouter = router({
  /** Branch, ahead/behind and the changed files; `repository: false` when the project has no repository. */
  status: workspaceProcedure.query(({ ctx }) =>
    gitCall(async () => {
      const git = ctx.services.git;
      if (!(await git.repo(ctx.project.id, ctx.tree.treeId).isRepository())) return { repository: false as const };
      const [status, ignored, mode] = await Promise.all([
        git.status(ctx.project.id, ctx.tree.treeId),
        git.repo(ctx.project.id, ctx.tree.treeId).ignored(),
        getPullMode(ctx.services.db, ctx.project.id),
      ]);
      return { repository: true as const, ...status, ignored, pullMode: mode };
    }),
  ),

  init: workspaceMutationProcedure.mutation(({ ctx }) =>
    gitCall(() =>
      ctx.services.git.serial(ctx.project.id, () => ctx.services.git.repo(ctx.project.id, ctx.tree.treeId).init()),
    ),
  ),

  /** Both sides of one file's change for the diff editor, and the patch its hunk buttons act on. */
  diff: workspaceProcedure.input(z.object({ path: gitPath, side })).query(({ ctx, input }) =>
    gitCall(async () => {
      const repo = ctx.services.git.repo(ctx.project.id, ctx.tree.treeId);
      const patch = await repo.diff(input.path, input.side);
      const original =
        input.side === "index"
          ? await repo.show(input.path, "HEAD")
          : ((await repo.show(input.path, "index")) ?? (await repo.show(input.path, "HEAD")));
      const modified =
        input.side === "index"
          ? await repo.show(input.path, "index")
          : await ctx.workspace.read(input.path).then(
              (r) => (r.kind === "text" ? r.content : null),
              () => null,
            );
      return {
        path: input.path,
        side: input.side,
        original: original ?? "",
        modified: modified ?? "",
        patch,
        hunks: hunkCount(patch),
      };
    }),
  ),

  stage: workspaceMutationProcedure
    .input(paths)
    .mutation(({ ctx, input }) =>
      gitCall(() =>
        ctx.services.git.serial(ctx.project.id, () =>
          ctx.services.git.repo(ctx.project.id, ctx.tree.treeId).stage(input.paths),
        ),
      ),
    ),
  unstage: workspaceMutationProcedure
    .input(paths)
    .mutation(({ ctx, input }) =>
      gitCall(() =>
        ctx.services.git.serial(ctx.project.id, () =>
          ctx.services.git.repo(ctx.project.id, ctx.tree.treeId).unstage(input.paths),
        ),
      ),
    ),
  discard: workspaceMutationProcedure
    .input(paths)
    .mutation(({ ctx, input }) =>
      gitCall(() =>
        ctx.services.git.serial(ctx.project.id, () =>
          ctx.services.git.repo(ctx.project.id, ctx.tree.treeId).discard(input.paths),
        ),
      ),
    ),

  applyHunk: workspaceMutationProcedure
    .input(
      z.object({
        path: gitPath,
        hunkIndex: z.number().int().min(0),
        action: z.enum(["stage", "unstage", "discard"]),
        expectedDiff: z.string().max(20_000_000),
      }),
    )
    .mutation(({ ctx, input }) =>
      gitCall(() =>
        ctx.services.git.serial(ctx.project.id, () =>
          ctx.services.git.repo(ctx.project.id, ctx.tree.treeId).applyHunk(input),
        ),
      ),
    ),

  commit: workspaceMutationProcedure
    .input(
      z.object({
        message: z.string().trim().min(1, "Write a commit message").max(100_000),
        amend: z.boolean().default(false),
      }),
    )
    .mutation(({ ctx, input }) =>
      gitCall(async () => ({
        oid: await ctx.services.git.commit(ctx.project, person(ctx.user), input, ctx.requestOrigin, ctx.tree.treeId),
      })),
    ),

  lastCommitMessage: workspaceProcedure.query(({ ctx }) =>
    gitCall(() => ctx.services.git.repo(ctx.project.id, ctx.tree.treeId).lastCommitMessage()),
  ),

  branches: workspaceProcedure.query(({ ctx }) =>
    gitCall(() => ctx.services.git.repo(ctx.project.id, ctx.tree.treeId).branches()),
  ),

  createBranch: workspaceMutationProcedure
    .input(z.object({ name: branchName, switchTo: z.boolean().default(true) }))
    .mutation(({ ctx, input }) =>
      gitCall(() =>
        ctx.services.git.serial(ctx.project.id, () =>
          ctx.services.git.repo(ctx.project.id, ctx.tree.treeId).createBranch(input.name, input.switchTo),
        ),
      ),
    ),

  switchBranch: workspaceMutationProcedure
    .input(z.object({ name: branchName }))
    .mutation(({ ctx, input }) =>
      gitCall(() =>
        ctx.services.git.serial(ctx.project.id, () =>
          ctx.services.git.repo(ctx.project.id, ctx.tree.treeId).switchBranch(input.name),
        ),
      ),
    ),

  log: workspaceProcedure
    .input(z.object({ limit: z.number().int().min(1).max(500).default(100) }))
    .query(({ ctx, input }) => gitCall(() => ctx.services.git.repo(ctx.project.id, ctx.tree.treeId).log(input.limit))),

  commitDetails: workspaceProcedure
    .input(z.object({ oid: z.string().regex(/^[0-9a-f]{4,64}$/i, "oid must be a commit id") }))
    .query(({ ctx, input }) =>
      gitCall(() => ctx.services.git.repo(ctx.project.id, ctx.tree.treeId).commitDetails(input.oid)),
    ),

  finishMerge: workspaceMutationProcedure
    .input(z.object({ action: z.enum(["continue", "abort"]) }))
    .mutation(({ ctx, input }) =>
      gitCall(() =>
        ctx.services.git.serial(ctx.project.id, () =>
          ctx.services.git.repo(ctx.project.id, ctx.tree.treeId).finishMerge(input.action, person(ctx.user)),
        ),
      ),
    ),

  fetch: workspaceMutationProcedure
    .input(remoteInput)
    .mutation(({ ctx, input }) => remote(ctx, input.operationId, "fetch")),
  pull: workspaceMutationProcedure
    .input(remoteInput)
    .mutation(({ ctx, input }) => remote(ctx, input.operationId, "pull")),
  /** Pushes the current branch (setting its upstream) and says where a pull request for it is opened. */
  push: workspaceMutationProcedure.input(remoteInput).mutation(async ({ ctx, input }) => {
    const { remote: url } = await remote(ctx, input.operationId, "push");
    const status = await ctx.services.git.status(ctx.project.id);
    const forges = withProjectForge(
      ctx.services.config.gitForges,
      new URL(url),
      await getGitForge(ctx.services.db, ctx.project.id),
    );
    const forge = forgeOf(new URL(url), forges);
    return {
      pullRequestUrl: status.branch ? pullRequestLink(url, status.branch, forges) : null,
      // Through the API only where Tandem speaks it (GitHub's REST pulls endpoint).
      canOpenPullRequest: forge?.kind === "github" && status.branch !== null,
      branch: status.branch,
    };
  }),

  /**
   * Opens a pull request for the current branch through the host's API (GitHub kind) with the
   * caller's token; `sessionId` (a session of this project, the one open beside Source Control)
   * records it in that session's log, so everyone in the session sees the link.
   */
  openPullRequest: workspaceMutationProcedure
    .input(
      z.object({
        title: z.string().trim().min(1, "Give the pull request a title").max(300),
        body: z.string().max(60_000).default(""),
        base: branchName.default("main"),
        sessionId: z.string().uuid().optional(),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      mainTreeOnly(ctx);
      const { sessionId, ...request } = input;
      const chosen = await getGitForge(ctx.services.db, ctx.project.id);
      const opened = await gitCall(() =>
        ctx.services.git.openPullRequest(ctx.project, remotePerson(ctx), {
          ...request,
          forges: (remote) => withProjectForge(ctx.services.config.gitForges, remote, chosen),
        }),
      );
      const session = sessionId ? await findSession(ctx.services.db, sessionId) : null;
      if (session?.projectId === ctx.project.id) {
        await ctx.services.agent.log.append(
          session.id,
          "pull_request_opened",
          { ...opened, title: request.title, by: { id: ctx.user.id, name: ctx.user.name } },
          ctx.user.id,
        );
      }
      return opened;
    }),

  /**
   * Where fetch, pull and push go: the remote Tandem stored (`url`, null until one is recorded) and
   * what the repository's origin says now (`origin`), which any writer can change in the terminal.
   */
  remote: workspaceProcedure.query(({ ctx }) =>
    gitCall(async () => ({
      ...(await ctx.services.git.remoteInfo(ctx.project.id)),
      forge: await getGitForge(ctx.services.db, ctx.project.id),
    })),
  ),

  /** A project admin chooses the remote everyone's fetch, pull and push go to (an https or ssh URL). */
  setRemote: projectAdminProcedure
    .input(z.object({ url: gitUrl }))
    .mutation(({ ctx, input }) => gitCall(() => ctx.services.git.setRemote(ctx.project.id, input.url))),

  /** A project admin says which forge serves a self-hosted remote (its pull-request link); null: well-known hosts only. */
  setForge: projectAdminProcedure
    .input(z.object({ forge: z.enum(FORGE_KINDS).nullable() }))
    .mutation(({ ctx, input }) => setGitForge(ctx.services.db, ctx.project.id, input.forge)),

  setPullMode: projectAdminProcedure
    .input(z.object({ mode: pullMode }))
    .mutation(({ ctx, input }) => setPullMode(ctx.services.db, ctx.project.id, input.mode)),

  /** The ssh host keys the project accepted on first use, by host and fingerprint. */
  knownHosts: workspaceProcedure.query(async ({ ctx }) =>
    (await listProjectKnownHostKeys(ctx.services.db, ctx.project.id)).map((k) => ({
      host: k.host,
      keyType: k.keyType,
      fingerprint: hostKeyFingerprint(k.key),
      acceptedAt: k.createdAt,
    })),
  ),

  /** Forgets a host's keys (after the host really changed its key): the next connection records the new one. */
  forgetHostKey: projectAdminProcedure
    .input(
      z.object({
        host: z
          .string()
          .trim()
          .max(300)
          .regex(/^(\[[a-z0-9.-]+\]:\d{1,5}|[a-z0-9.-]+)$/i, "host is a name, or [name]:port"),
      }),
    )
    .mutation(async ({ ctx, input }) => ({
      forgotten: await deleteKnownHostKeys(ctx.services.db, ctx.project.id, input.host),
    })),

  /** Progress of a clone, fetch, pull or push the caller started, until it ends. */
  operation: protectedProcedure
    .input(z.object({ operationId }))
    .subscription(({ ctx, input, signal }) =>
      ctx.services.git.operations.watch(input.operationId, ctx.user.id, signal),
    ),

  cancel: protectedProcedure
    .input(z.object({ operationId }))
    .mutation(({ ctx, input }) => ({ cancelled: ctx.services.git.operations.cancel(input.operationId, ctx.user.id) })),
});

type RemoteCtx = {
  services: { git: import("@/server/services/project-git").ProjectGit };
  project: { id: string; teamId: string };
  user: { id: string; name: string; email: string };
  role: ProjectRole;
  tree: { treeId: string | null };
};

/** The remote's operations run in the main tree (its credentials' throwaway repository reads that tree's objects). */
function mainTreeOnly(ctx: { tree: { treeId: string | null } }) {
  if (ctx.tree.treeId)
    throw new TRPCError({
      code: "BAD_REQUEST",
      message:
        "Fetch, pull, push and pull requests run in the main tree: switch the IDE to main, or merge the session first.",
    });
}

function remote(ctx: RemoteCtx, id: string, action: "fetch" | "pull" | "push") {
  mainTreeOnly(ctx);
  return gitCall(() =>
    ctx.services.git.operations.run(id, ctx.user.id, (signal, progress) =>
      ctx.services.git.remote(ctx.project, remotePerson(ctx), action, {
        signal,
        onProgress: (p) => progress({ kind: "progress", ...p }),
      }),
    ),
  );
}
