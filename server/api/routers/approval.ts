import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { protectedProcedure, router } from "@/server/api/trpc";
import { findApproval } from "@/server/db/repositories/approvals";
import { findProjectForUser } from "@/server/db/repositories/projects";
import { runtimeCall } from "@/server/api/routers/session";

// Answers to the agent's approval requests and questions. Whoever answers needs write access
// to the session's project, and is recorded.

const approvalWriteProcedure = protectedProcedure
  .input(z.object({ approvalId: z.string().uuid("approvalId must be an approval id") }))
  .use(async ({ ctx, input, next }) => {
    const approval = await findApproval(ctx.services.db, input.approvalId);
    const found = approval && (await findProjectForUser(ctx.services.db, approval.projectId, ctx.user.id));
    if (!approval || !found) throw new TRPCError({ code: "NOT_FOUND", message: "No such approval request, or you do not have access to it." });
    if (found.role === "viewer") throw new TRPCError({ code: "FORBIDDEN", message: "Your role in this project is read-only." });
    return next({ ctx: { ...ctx, approval } });
  });

export const approvalRouter = router({
  respond: approvalWriteProcedure
    .input(
      z.object({
        decision: z.enum(["approve", "approve_always", "reject"]),
        /** With reject: goes back to the model as the tool's result. */
        feedback: z.string().trim().max(10_000).optional(),
        /** For questions (ask_user): free text, or the chosen option(s). */
        answer: z.union([z.string().trim().min(1).max(10_000), z.array(z.string().min(1).max(1000)).min(1).max(20)]).optional(),
      }),
    )
    .mutation(({ ctx, input }) =>
      runtimeCall(() =>
        ctx.services.agent.respond({
          approvalId: ctx.approval.id,
          decision: input.decision,
          feedback: input.feedback,
          answer: input.answer,
          user: { id: ctx.user.id, name: ctx.user.name },
        }),
      ),
    ),
});
