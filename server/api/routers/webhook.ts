import { TRPCError } from "@trpc/server";
import { projectAdminProcedure, router } from "@/server/api/trpc";
import { webhookPath } from "@/lib/webhooks";

// A project's inbound webhook (docs/api.md#inbound-webhook), managed by its admins from a signed-in
// browser: a token cannot mint the secret of another way in.
const webhookAdminProcedure = projectAdminProcedure.meta({ tokenScope: "browser" });

export const webhookRouter = router({
  get: projectAdminProcedure.query(async ({ ctx }) => {
    const webhook = await ctx.services.webhooks.get(ctx.project.id);
    // The forge whose `@tandem` comments the same URL takes (docs/api.md), and whether the team's token is there.
    return (
      webhook && {
        ...webhook,
        path: webhookPath(ctx.project.id),
        forge: await ctx.services.forgeRequests.describe(ctx.project),
      }
    );
  }),

  /**
   * Makes the webhook or replaces its secret (the old one stops at once); the secret, and the token
   * GitLab's webhook sends (derived from it, for `@tandem` comments only), are in this answer only.
   */
  enable: webhookAdminProcedure.mutation(async ({ ctx }) => ({
    ...(await ctx.services.webhooks.enable(ctx.project)),
    path: webhookPath(ctx.project.id),
  })),

  disable: webhookAdminProcedure.mutation(async ({ ctx }) => {
    const account = await ctx.services.webhooks.disable(ctx.project);
    if (!account) throw new TRPCError({ code: "NOT_FOUND", message: "This project has no webhook." });
    ctx.services.accessChanges.publish({ kind: "user", userId: account });
    return { ok: true };
  }),
});
