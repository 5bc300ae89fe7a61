import { z } from "zod";
import { TRPCError } from "@trpc/server";
import { projectProcedure, router, workspaceMutationProcedure, workspaceProcedure } from "@/server/api/trpc";

// The TCP ports listening in the project's workspace network (server/sandbox/workspace-network.ts),
// read when asked: the IDE asks every few seconds while it is open, and never otherwise.

export const portsRouter = router({
  list: workspaceProcedure.query(async ({ ctx }) => {
    const networks = ctx.services.sandbox.networks;
    const ports = networks ? await networks.ports(ctx.workspace.root) : [];
    return {
      /** Whether this server gives workspaces a network of their own it can look into. */
      available: networks !== null,
      ports: ports.map(({ port, address, process }) => ({ port, address, process })),
    };
  }),

  /** A one-time link to the port's preview on its own origin, for the caller (a member who may read). */
  preview: projectProcedure.input(z.object({ port: z.number().int().min(1).max(65535) })).mutation(({ ctx, input }) => {
    const url = ctx.services.previews.entryUrl(ctx.project.id, input.port, ctx.user.id);
    if (!url) throw new TRPCError({ code: "PRECONDITION_FAILED", message: "Previews are not served yet; try again." });
    if (!ctx.services.sandbox.networks)
      throw new TRPCError({
        code: "PRECONDITION_FAILED",
        message:
          "This server gives workspaces no network of their own (no bubblewrap, or not root), so it serves no previews.",
      });
    return { url };
  }),

  stop: workspaceMutationProcedure
    .input(z.object({ port: z.number().int().min(1).max(65535) }))
    .mutation(async ({ ctx, input }) => ({
      stopped: (await ctx.services.sandbox.networks?.stop(ctx.workspace.root, input.port)) ?? false,
    })),
});
