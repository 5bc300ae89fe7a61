import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { projectMutationProcedure, projectProcedure, protectedProcedure, router } from "@/server/api/trpc";
import * as projects from "@/server/db/repositories/projects";
import { ImportNotAllowedError } from "@/server/services/project-files";

const projectName = z.string().trim().min(1, "Give the project a name").max(100, "Keep the name under 100 characters");

export const projectRouter = router({
  list: protectedProcedure.query(({ ctx }) => projects.listProjectsForUser(ctx.services.db, ctx.user.id)),

  get: projectProcedure.query(({ ctx }) => ({ ...ctx.project, role: ctx.role })),

  create: protectedProcedure
    .input(z.object({ name: projectName, importPath: z.string().min(1).optional() }))
    .mutation(async ({ ctx, input }) => {
      const { db, files } = ctx.services;
      const project = await projects.createProject(db, { name: input.name, ownerId: ctx.user.id });
      try {
        if (input.importPath) await files.importFrom(project.id, input.importPath);
        else await files.createEmpty(project.id);
      } catch (error) {
        await projects.deleteProject(db, project.id);
        await files.remove(project.id);
        if (error instanceof ImportNotAllowedError) throw new TRPCError({ code: "BAD_REQUEST", message: error.message });
        throw error;
      }
      return project;
    }),

  rename: projectMutationProcedure
    .input(z.object({ name: projectName }))
    .mutation(({ ctx, input }) => projects.renameProject(ctx.services.db, ctx.project.id, input.name)),

  delete: projectMutationProcedure.mutation(async ({ ctx }) => {
    if (ctx.role !== "owner" && ctx.role !== "admin") {
      throw new TRPCError({ code: "FORBIDDEN", message: "Only the project's owner can delete it." });
    }
    ctx.services.terminals.closeProject?.(ctx.project.id);
    await projects.deleteProject(ctx.services.db, ctx.project.id);
    await ctx.services.files.remove(ctx.project.id);
    return { id: ctx.project.id };
  }),
});
