import { z } from "zod";
import { notifyMentions } from "@/server/services/session-notices";
import { router, sessionMutationProcedure, sessionViewProcedure } from "@/server/api/trpc";
import { untilLinkEnds } from "@/server/api/live";
import { person, reviewCall } from "@/server/api/routers/review-call";
import { runtimeCall } from "@/server/api/routers/session";
import { listComments } from "@/server/db/repositories/review-comments";
import { reviewComments } from "@/server/services/review-comments";
import { workspacePathSchema } from "@/lib/fs-schemas";
import { timeZoneSchema } from "@/lib/time-zone";

// Review comments on lines of a session's diff. Writers comment and send the review; whoever may
// watch the session (members, and holders of a live link to this very session) reads its comments.

const since = z
  .string()
  .regex(/^[0-9a-f]{40}$/, "sinceCheckpointId must be a checkpoint id")
  .optional();

export const commentRouter = router({
  list: sessionViewProcedure.query(({ ctx }) => listComments(ctx.services.db, ctx.session.id)),

  /** The session's comments now, and again whenever someone adds, deletes or sends one, or a turn addresses one. */
  watch: sessionViewProcedure.subscription(({ ctx, signal }) =>
    untilLinkEnds(ctx, ctx.services.board.comments(ctx.session, signal)),
  ),

  add: sessionMutationProcedure
    .input(
      z.object({
        path: workspacePathSchema.pipe(z.string().min(1, "path must name a file")),
        line: z.number().int().min(1),
        side: z.enum(["current", "original"]),
        body: z.string().trim().min(1, "a comment must say something").max(10_000),
        /** The review the comment was made in: one turn's diff rather than the whole session's. */
        sinceCheckpointId: since,
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const comment = await reviewCall(() =>
        reviewComments(ctx.services, ctx.session).add({ ...input, by: person(ctx.user) }),
      );
      await notifyMentions(ctx.services.db, ctx.services.notifications, {
        session: ctx.session,
        text: comment.body,
        by: person(ctx.user),
        where: ` (a review comment on ${comment.path}:${comment.line})`,
      });
      return comment;
    }),

  /** Deletes one of the caller's own comments. */
  delete: sessionMutationProcedure
    .input(z.object({ commentId: z.string().uuid("commentId must be a comment id") }))
    .mutation(({ ctx, input }) =>
      reviewCall(() => reviewComments(ctx.services, ctx.session).remove({ ...input, by: person(ctx.user) })),
    ),

  /** "Send review": every open comment of the session, to the agent, as one message. */
  send: sessionMutationProcedure.input(z.object({ timeZone: timeZoneSchema.optional() })).mutation(({ ctx, input }) =>
    reviewCall(() =>
      runtimeCall(() =>
        reviewComments(ctx.services, ctx.session).send({
          by: person(ctx.user),
          tokenId: ctx.token?.id ?? null,
          ...input,
        }),
      ),
    ),
  ),
});
