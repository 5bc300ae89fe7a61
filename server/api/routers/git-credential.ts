import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { protectedProcedure, router, teamAdminProcedure, teamProcedure } from "@/server/api/trpc";
import * as credentials from "@/server/db/repositories/git-credentials";
import { credentialInput, storeGitCredential } from "@/server/services/git-credentials";
import { gitCall } from "./git";

// Git credentials: a person's own, and a team's shared ones (managed by its owners and admins).
// The token or private key goes in once and never comes back out: lists show name, host, username,
// kind and an ssh key's public fingerprint. A key ssh could not use is refused in words (BAD_REQUEST).
const credentialId = z.object({ credentialId: z.string().uuid("credentialId must be a credential id") });
const gone = () => new TRPCError({ code: "NOT_FOUND", message: "No such credential." });

export const gitCredentialRouter = router({
  list: protectedProcedure.query(({ ctx }) => credentials.listUserGitCredentials(ctx.services.db, ctx.user.id)),
  add: protectedProcedure
    .input(credentialInput)
    .mutation(({ ctx, input }) =>
      gitCall(() =>
        storeGitCredential(ctx.services.db, ctx.services.gitCipher, input, { userId: ctx.user.id }, ctx.user.id),
      ),
    ),
  remove: protectedProcedure.input(credentialId).mutation(async ({ ctx, input }) => {
    if (!(await credentials.deleteUserGitCredential(ctx.services.db, ctx.user.id, input.credentialId))) throw gone();
    return { id: input.credentialId };
  }),

  teamList: teamProcedure.query(({ ctx }) => credentials.listTeamGitCredentials(ctx.services.db, ctx.team.id)),
  teamAdd: teamAdminProcedure
    .input(credentialInput)
    .mutation(({ ctx, input }) =>
      gitCall(() =>
        storeGitCredential(ctx.services.db, ctx.services.gitCipher, input, { teamId: ctx.team.id }, ctx.user.id),
      ),
    ),
  teamRemove: teamAdminProcedure.input(credentialId).mutation(async ({ ctx, input }) => {
    if (!(await credentials.deleteTeamGitCredential(ctx.services.db, ctx.team.id, input.credentialId))) throw gone();
    return { id: input.credentialId };
  }),
});
