import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { projectMutationProcedure, projectProcedure, router } from "@/server/api/trpc";
import { TerminalLimitError } from "@/server/terminal";

const terminalId = z.string().uuid("terminalId must be a terminal id");

export const terminalRouter = router({
  list: projectProcedure.query(({ ctx }) => ctx.services.terminals.list(ctx.project.id)),

  create: projectMutationProcedure
    .input(
      z.object({
        cols: z.number().int().min(2).max(1000).default(80),
        rows: z.number().int().min(1).max(500).default(24),
      }),
    )
    .mutation(({ ctx, input }) => {
      try {
        return ctx.services.terminals.create(ctx.project.id, ctx.workspace.root, input);
      } catch (error) {
        if (error instanceof TerminalLimitError) throw new TRPCError({ code: "TOO_MANY_REQUESTS", message: error.message });
        throw error;
      }
    }),

  close: projectMutationProcedure.input(z.object({ terminalId })).mutation(({ ctx, input }) => {
    if (!ctx.services.terminals.close(ctx.project.id, input.terminalId)) {
      throw new TRPCError({ code: "NOT_FOUND", message: "No such terminal; it may already be closed." });
    }
    return { id: input.terminalId };
  }),
});
