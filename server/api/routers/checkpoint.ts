import { z } from "zod";
import { router, sessionMutationProcedure, sessionProcedure } from "@/server/api/trpc";
import { person, reviewCall, reviewOf } from "@/server/api/routers/review-call";

// "Restore to before this turn": a session's checkpoints (one per turn that changed files), a
// preview of what a restore changes, the restore (optionally rewinding the conversation), and its undo.

const checkpointId = z.string().regex(/^[0-9a-f]{40}$/, "checkpointId must be a checkpoint id");

export const checkpointRouter = router({
  list: sessionProcedure.query(({ ctx }) => reviewCall(() => reviewOf(ctx).checkpoints())),

  preview: sessionProcedure
    .input(z.object({ checkpointId }))
    .query(({ ctx, input }) => reviewCall(() => reviewOf(ctx).preview(input))),

  restore: sessionMutationProcedure
    .input(z.object({ checkpointId, rewindConversation: z.boolean().default(false) }))
    .mutation(({ ctx, input }) => reviewCall(() => reviewOf(ctx).restore({ ...input, by: person(ctx.user) }))),

  undoRestore: sessionMutationProcedure
    .input(z.object({ undoId: checkpointId }))
    .mutation(({ ctx, input }) => reviewCall(() => reviewOf(ctx).undoRestore({ ...input, by: person(ctx.user) }))),
});
