import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { browserProcedure, router, teamAdminProcedure } from "@/server/api/trpc";
import { issueApiToken, issueTeamToken } from "@/server/auth/api-tokens";
import { listApiTokens, listTeamTokens, revokeApiToken, revokeTeamToken } from "@/server/db/repositories/api-tokens";
import { createApiTokenInput } from "@/lib/api-tokens";

// A person's API tokens, and a team's (its owners and admins manage them): made, listed and revoked
// from a signed-in browser only.
const teamTokenProcedure = teamAdminProcedure.meta({ tokenScope: "browser" });

export const apiTokenRouter = router({
  list: browserProcedure.query(({ ctx }) => listApiTokens(ctx.services.db, ctx.user.id)),

  /** The token's text is in this answer only; the server keeps its hash. */
  create: browserProcedure.input(createApiTokenInput).mutation(async ({ ctx, input }) => {
    const { token, row } = await issueApiToken(ctx.services.db, { userId: ctx.user.id, ...input });
    return { token, apiToken: row };
  }),

  revoke: browserProcedure.input(z.object({ id: z.string().uuid() })).mutation(async ({ ctx, input }) => {
    if (!(await revokeApiToken(ctx.services.db, ctx.user.id, input.id)))
      throw new TRPCError({ code: "NOT_FOUND", message: "No such live token." });
    // Every instance drops what it kept of this person's logins, and open connections re-check:
    // the token stops working with the next call, and what is open under it closes.
    ctx.services.accessChanges.publish({ kind: "user", userId: ctx.user.id });
    return { ok: true };
  }),

  teamList: teamTokenProcedure.query(({ ctx }) => listTeamTokens(ctx.services.db, ctx.team.id)),

  /** The team's token acts as an account of the team's own; its text is in this answer only. */
  teamCreate: teamTokenProcedure.input(createApiTokenInput).mutation(async ({ ctx, input }) => {
    const { token, row } = await issueTeamToken(ctx.services.db, { ...input, teamId: ctx.team.id });
    return { token, apiToken: row };
  }),

  teamRevoke: teamTokenProcedure.input(z.object({ id: z.string().uuid() })).mutation(async ({ ctx, input }) => {
    const account = await revokeTeamToken(ctx.services.db, ctx.team.id, input.id);
    if (!account) throw new TRPCError({ code: "NOT_FOUND", message: "No such live token in this team." });
    ctx.services.accessChanges.publish({ kind: "user", userId: account });
    return { ok: true };
  }),
});
