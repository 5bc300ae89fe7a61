import { z } from "zod";
import { router, workspaceMutationProcedure, workspaceProcedure } from "@/server/api/trpc";

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

  stop: workspaceMutationProcedure
    .input(z.object({ port: z.number().int().min(1).max(65535) }))
    .mutation(async ({ ctx, input }) => ({
      stopped: (await ctx.services.sandbox.networks?.stop(ctx.workspace.root, input.port)) ?? false,
    })),
});
