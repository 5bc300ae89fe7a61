import { z } from "zod";
import { approvalProcedure, router } from "@/server/api/trpc";
import { runtimeCall } from "@/server/api/routers/session";

// Answers to the agent's approval requests and questions. Whoever answers takes part in the
// session (approvalProcedure, server/api/trpc.ts), and is recorded.

export const approvalRouter = router({
  respond: approvalProcedure
    .input(
      z.object({
        decision: z.enum(["approve", "approve_always", "reject"]),
        /** With reject: goes back to the model as the tool's result. */
        feedback: z.string().trim().max(10_000).optional(),
        /** For questions (ask_user): free text, or the chosen option(s). */
        answer: z
          .union([z.string().trim().min(1).max(10_000), z.array(z.string().min(1).max(1000)).min(1).max(20)])
          .optional(),
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
