import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { secretName, secretValue } from "@/lib/secrets";
import {
  projectAdminProcedure,
  projectMutationProcedure,
  protectedProcedure,
  router,
  teamAdminProcedure,
  teamWriterProcedure,
} from "@/server/api/trpc";
import * as secrets from "@/server/db/repositories/secrets";
import { setSecret } from "@/server/services/secrets";

// Secrets of a project (its admins set them), a team (its owners and admins) and a person (their
// own). A value goes in once and never comes back out: lists give names and dates. Names are shown
// only to those who can run commands in the project or team (not viewers, never a view link).
const secretInput = z.object({ name: secretName, value: secretValue });
const secretId = z.object({ secretId: z.string().uuid("secretId must be a secret id") });
const gone = () => new TRPCError({ code: "NOT_FOUND", message: "No such secret." });

export const secretRouter = router({
  list: protectedProcedure.query(({ ctx }) => secrets.listSecrets(ctx.services.db, { userId: ctx.user.id })),
  set: protectedProcedure
    .input(secretInput)
    .mutation(({ ctx, input }) =>
      setSecret(ctx.services.db, ctx.services.gitCipher, { userId: ctx.user.id }, input, ctx.user.id),
    ),
  remove: protectedProcedure.input(secretId).mutation(async ({ ctx, input }) => {
    if (!(await secrets.deleteSecret(ctx.services.db, { userId: ctx.user.id }, input.secretId))) throw gone();
    return { id: input.secretId };
  }),

  projectList: projectMutationProcedure.query(({ ctx }) =>
    secrets.listSecrets(ctx.services.db, { projectId: ctx.project.id }),
  ),
  projectSet: projectAdminProcedure
    .input(secretInput)
    .mutation(({ ctx, input }) =>
      setSecret(ctx.services.db, ctx.services.gitCipher, { projectId: ctx.project.id }, input, ctx.user.id),
    ),
  projectRemove: projectAdminProcedure.input(secretId).mutation(async ({ ctx, input }) => {
    if (!(await secrets.deleteSecret(ctx.services.db, { projectId: ctx.project.id }, input.secretId))) throw gone();
    return { id: input.secretId };
  }),

  teamList: teamWriterProcedure.query(({ ctx }) => secrets.listSecrets(ctx.services.db, { teamId: ctx.team.id })),
  teamSet: teamAdminProcedure
    .input(secretInput)
    .mutation(({ ctx, input }) =>
      setSecret(ctx.services.db, ctx.services.gitCipher, { teamId: ctx.team.id }, input, ctx.user.id),
    ),
  teamRemove: teamAdminProcedure.input(secretId).mutation(async ({ ctx, input }) => {
    if (!(await secrets.deleteSecret(ctx.services.db, { teamId: ctx.team.id }, input.secretId))) throw gone();
    return { id: input.secretId };
  }),
});
