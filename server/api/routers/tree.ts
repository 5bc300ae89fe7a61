import { z } from "zod";
import { branchName, operationId } from "@/lib/git-schemas";
import { ADMIN_ROLES } from "@/server/api/access";
import { gitCall } from "@/server/api/routers/git";
import { getGitForge } from "@/server/db/repositories/git-credentials";
import { withProjectForge } from "@/server/git/pull-request";
import { runtimeCall } from "@/server/api/routers/session";
import {
  projectProcedure,
  projectRunProcedure,
  router,
  sessionMutationProcedure,
  sessionProcedure,
  sessionViewProcedure,
} from "@/server/api/trpc";

// Sessions on branches of their own (docs/git.md): what "New session" offers, starting one,
// the project's trees, and finishing one (update from its base, merge into it, push and open a
// pull request, or discard). Reading needs the right to read the project; starting one, the right
// to start sessions (as session.create); the rest, the right to write in it (as for Source
// Control's commits, merges and pushes).

const person = (user: { id: string; name: string; email: string }) => ({
  id: user.id,
  name: user.name,
  email: user.email,
});

export const treeRouter = router({
  /** Whether sessions may have branches of their own here (a repository with a commit), the local branches, the one checked out. */
  options: projectProcedure.query(({ ctx }) => gitCall(() => ctx.services.trees.options(ctx.project.id))),

  /** The project's session trees, with their sessions' titles and authors and each worktree's size. */
  list: projectProcedure.query(({ ctx }) => ctx.services.trees.list(ctx.project.id)),

  /** A new session on a new branch (default tandem/<title>) from `base` (default: the main tree's branch). */
  startSession: projectRunProcedure
    .input(
      z.object({
        title: z.string().trim().max(200).optional(),
        model: z.string().min(3).max(200).optional(),
        branch: branchName.optional(),
        base: z.string().trim().min(1).max(200).optional(),
      }),
    )
    .mutation(({ ctx, input }) =>
      gitCall(() =>
        runtimeCall(async () => {
          const { allowRules: _rules, ...session } = await ctx.services.trees.start({
            ...input,
            projectId: ctx.project.id,
            authorId: ctx.user.id,
          });
          return session;
        }),
      ),
    ),

  /** The session's branch and worktree (its parent's for a sub-agent), or null in the main tree; share links see their session's. */
  ofSession: sessionViewProcedure.query(({ ctx }) => ctx.services.trees.ofSession(ctx.session)),

  /** What "Discard" loses: the branch's commits not in its base, and the worktree's uncommitted files. */
  discardPreview: sessionProcedure.query(({ ctx }) => gitCall(() => ctx.services.trees.discardPreview(ctx.session.id))),

  /** Removes the session's worktree and branch; the session and its log stay. */
  discard: sessionMutationProcedure.mutation(({ ctx }) =>
    gitCall(async () => {
      await ctx.services.trees.discard(ctx.session.id);
      return { sessionId: ctx.session.id };
    }),
  ),

  /** Commits what the session left, then merges its base's new commits into its branch, in its worktree; conflicts are listed. */
  update: sessionMutationProcedure.mutation(({ ctx }) =>
    gitCall(async () => {
      const updated = await ctx.services.trees.update(ctx.session.id, person(ctx.user));
      ctx.services.board.changed(ctx.project.id, ctx.session.id);
      return updated;
    }),
  ),

  /**
   * Commits what the session left, pushes its branch (progress on git.operation) and opens a pull
   * request into its base through the forge's API with the caller's token; the link lands on the
   * session's card and in its log. Without an API or a token: `createUrl`, to open one by hand.
   */
  pushAndOpenPullRequest: sessionMutationProcedure
    .input(
      z.object({
        operationId,
        title: z.string().trim().max(300).optional(),
        body: z.string().max(60_000).optional(),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const chosen = await getGitForge(ctx.services.db, ctx.project.id);
      const caller = { ...person(ctx.user), mayChooseRemote: ADMIN_ROLES.includes(ctx.role) };
      const result = await gitCall(() =>
        ctx.services.git.operations.run(input.operationId, ctx.user.id, (signal, progress) =>
          ctx.services.trees.pushAndOpenPullRequest(ctx.project, ctx.session.id, caller, {
            title: input.title,
            body: input.body,
            forges: (remote) => withProjectForge(ctx.services.config.gitForges, remote, chosen),
            signal,
            onProgress: (p) => progress({ kind: "progress", ...p }),
          }),
        ),
      );
      ctx.services.board.changed(ctx.project.id, ctx.session.id);
      return result;
    }),

  /** Commits what the session left, then merges its branch into its base in the main tree. */
  merge: sessionMutationProcedure.mutation(({ ctx }) =>
    gitCall(() => ctx.services.trees.merge(ctx.session.id, person(ctx.user))),
  ),
});
