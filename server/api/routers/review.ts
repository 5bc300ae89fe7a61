import { z } from "zod";
import { router, sessionMutationProcedure, sessionProcedure } from "@/server/api/trpc";
import { person, reviewCall, reviewOf } from "@/server/api/routers/review-call";
import { workspacePathSchema } from "@/lib/fs-schemas";

// The Changes view of an agent session: what changed since the session's review base (its first
// checkpoint, moved forward by accepts) or since a chosen turn's checkpoint, hunk by hunk.

const filePath = workspacePathSchema.pipe(z.string().min(1, "path must name a file"));
const since = z
  .string()
  .regex(/^[0-9a-f]{40}$/, "sinceCheckpointId must be a checkpoint id")
  .optional();
const expectedVersion = z.string().nullable().optional();
const hunkIndex = z.number().int().min(0);

export const reviewRouter = router({
  changes: sessionProcedure
    .input(z.object({ sinceCheckpointId: since }))
    .query(({ ctx, input }) => reviewCall(() => reviewOf(ctx).changes(input))),

  file: sessionProcedure
    .input(z.object({ path: filePath, sinceCheckpointId: since }))
    .query(({ ctx, input }) => reviewCall(() => reviewOf(ctx).file(input))),

  rejectHunk: sessionMutationProcedure
    .input(z.object({ path: filePath, hunkIndex, expectedVersion, sinceCheckpointId: since }))
    .mutation(({ ctx, input }) => reviewCall(() => reviewOf(ctx).rejectHunk(input))),

  acceptHunk: sessionMutationProcedure
    .input(z.object({ path: filePath, hunkIndex, expectedVersion }))
    .mutation(({ ctx, input }) => reviewCall(() => reviewOf(ctx).acceptHunk({ ...input, by: person(ctx.user) }))),

  rejectFile: sessionMutationProcedure
    .input(z.object({ path: filePath, expectedVersion, sinceCheckpointId: since }))
    .mutation(({ ctx, input }) => reviewCall(() => reviewOf(ctx).rejectFile(input))),

  acceptFile: sessionMutationProcedure
    .input(z.object({ path: filePath, expectedVersion }))
    .mutation(({ ctx, input }) => reviewCall(() => reviewOf(ctx).acceptFile({ ...input, by: person(ctx.user) }))),
});
