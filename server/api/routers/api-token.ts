import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { browserProcedure, router } from "@/server/api/trpc";
import { issueApiToken } from "@/server/auth/api-tokens";
import { listApiTokens, revokeApiToken } from "@/server/db/repositories/api-tokens";
import { createApiTokenInput } from "@/lib/api-tokens";

// A person's API tokens: made, listed and revoked from their signed-in browser only.
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
    // the token stops working with the next call.
    ctx.services.accessChanges.publish({ kind: "user", userId: ctx.user.id });
    return { ok: true };
  }),
});
