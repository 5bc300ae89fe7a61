import { TRPCError } from "@trpc/server";
import { setBudgetInput, usageRangeInput } from "@/lib/usage";
import { adminProcedure, router, teamProcedure } from "@/server/api/trpc";
import { createUsageReport, UsageError } from "@/server/services/usage-report";

// Tokens and cost of the agent's work, and budgets. The whole instance and every budget: its
// admins (who alone set budgets and prices, model.setSettings); one team's: its members.

function refused(error: unknown): never {
  if (error instanceof UsageError) throw new TRPCError({ code: "BAD_REQUEST", message: error.message });
  throw error;
}

export const usageRouter = router({
  report: adminProcedure
    .input(usageRangeInput)
    .query(({ ctx, input }) => createUsageReport(ctx.services.db).rows(input).catch(refused)),

  team: teamProcedure.input(usageRangeInput).query(async ({ ctx, input }) => {
    const report = createUsageReport(ctx.services.db);
    const usage = await report.rows({ ...input, teamId: ctx.team.id }).catch(refused);
    return { ...usage, team: ctx.team, budget: await report.teamBudget(ctx.team.id) };
  }),

  budgets: adminProcedure.query(({ ctx }) => createUsageReport(ctx.services.db).budgets()),

  setBudget: adminProcedure.input(setBudgetInput).mutation(({ ctx, input }) => {
    const { monthlyUsd, ...subject } = input;
    return createUsageReport(ctx.services.db).setBudget(subject, monthlyUsd, ctx.user.id).catch(refused);
  }),

  prices: adminProcedure.query(({ ctx }) => createUsageReport(ctx.services.db).prices()),
});
