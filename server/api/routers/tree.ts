import { z } from "zod";
import { branchName } from "@/lib/git-schemas";
import { gitCall } from "@/server/api/routers/git";
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
// the project's trees, and finishing one (merge into its base, or discard). Reading needs the
// right to read the project; starting one, the right to start sessions (as session.create); merging
// and discarding, the right to write in it (as for Source Control's commits and merges).

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

  /** Commits what the session left, then merges its branch into its base in the main tree. */
  merge: sessionMutationProcedure.mutation(({ ctx }) =>
    gitCall(() => ctx.services.trees.merge(ctx.session.id, person(ctx.user))),
  ),
});
