import { TRPCError } from "@trpc/server";
import { SandboxUnavailableError } from "@/server/sandbox/launcher";
import { z } from "zod";
import { projectMutationProcedure, projectProcedure, router, workspaceMutationProcedure } from "@/server/api/trpc";
import { mayTypeInTerminal } from "@/server/api/access";
import { TerminalLimitError } from "@/server/terminal";
import { secretEnvironment } from "@/server/services/secrets";

const terminalId = z.string().uuid("terminalId must be a terminal id");

export const terminalRouter = router({
  list: projectProcedure.query(({ ctx }) =>
    ctx.services.terminals.list(ctx.project.id).map((info) => ({
      ...info,
      canType: mayTypeInTerminal(ctx.role, ctx.user.id, info),
      mine: info.owner?.id === ctx.user.id,
    })),
  ),

  /** Since when this server holds the project's terminals: the browser tells a restart from a close by it. */
  server: projectProcedure.query(({ ctx }) => ({ startedAt: ctx.services.terminals.startedAt.toISOString() })),

  create: workspaceMutationProcedure
    .input(
      z.object({
        cols: z.number().int().min(2).max(1000).default(80),
        rows: z.number().int().min(1).max(500).default(24),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      try {
        // The team's, the project's and the person's own secrets: only they type here unless they share input.
        const secrets = await secretEnvironment(ctx.services.db, ctx.services.gitCipher, {
          projectId: ctx.project.id,
          personId: ctx.user.id,
        });
        const info = await ctx.services.terminals.create(ctx.project.id, ctx.workspace.root, {
          ...input,
          owner: { id: ctx.user.id, name: ctx.user.name, email: ctx.user.email },
          secrets,
        });
        return { ...info, canType: true, mine: true };
      } catch (error) {
        if (error instanceof TerminalLimitError)
          throw new TRPCError({ code: "TOO_MANY_REQUESTS", message: error.message });
        if (error instanceof SandboxUnavailableError)
          throw new TRPCError({ code: "PRECONDITION_FAILED", message: error.message });
        throw error;
      }
    }),

  /** The terminal's owner lets the team's writers type in it too, or takes that back. */
  shareInput: projectMutationProcedure
    .input(z.object({ terminalId, shared: z.boolean() }))
    .mutation(({ ctx, input }) => {
      const terminal = ctx.services.terminals.get(ctx.project.id, input.terminalId);
      if (!terminal) throw new TRPCError({ code: "NOT_FOUND", message: "No such terminal; it may already be closed." });
      if (terminal.owner && terminal.owner.id !== ctx.user.id) {
        throw new TRPCError({
          code: "FORBIDDEN",
          message: `Only ${terminal.owner.name}, who opened this terminal, can grant input.`,
        });
      }
      // A person's secret never sits in a process another member's keystrokes drive.
      if (input.shared && terminal.personalSecrets.length > 0) {
        throw new TRPCError({
          code: "PRECONDITION_FAILED",
          message: `This terminal holds your own secrets (${terminal.personalSecrets.join(", ")}), so only you may type in it. To work in a terminal with others, remove those secrets from your account settings and open a new terminal.`,
        });
      }
      terminal.inputShared = input.shared;
      return terminal.info();
    }),

  close: projectMutationProcedure.input(z.object({ terminalId })).mutation(({ ctx, input }) => {
    if (!ctx.services.terminals.close(ctx.project.id, input.terminalId)) {
      throw new TRPCError({ code: "NOT_FOUND", message: "No such terminal; it may already be closed." });
    }
    return { id: input.terminalId };
  }),
});
