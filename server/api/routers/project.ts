import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { projectAdminProcedure, projectProcedure, protectedProcedure, router } from "@/server/api/trpc";
import * as projects from "@/server/db/repositories/projects";
import * as liveSettings from "@/server/db/repositories/live-settings";
import { ensurePersonalTeam, findTeamRole } from "@/server/db/repositories/teams";
import { ImportNotAllowedError } from "@/server/services/project-files";
import { removeProject } from "@/server/services/project-removal";
import { gitCall } from "@/server/api/routers/git";
import { branchName, gitUrl, operationId } from "@/lib/git-schemas";

const projectName = z.string().trim().min(1, "Give the project a name").max(100, "Keep the name under 100 characters");

const autosaveDelay = z
  .number()
  .int()
  .min(500, "Autosave waits at least half a second after the last edit")
  .max(600_000, "Autosave waits at most 10 minutes")
  .nullable();

export const projectRouter = router({
  /** The projects of every team the caller is in, or of one team. */
  list: protectedProcedure
    .input(z.object({ teamId: z.string().uuid().optional() }).optional())
    .query(({ ctx, input }) => projects.listProjectsForUser(ctx.services.db, ctx.user.id, input?.teamId)),

  get: projectProcedure.query(({ ctx }) => ({ ...ctx.project, role: ctx.role })),

  create: protectedProcedure
    .input(
      z.object({
        name: projectName,
        importPath: z.string().min(1).optional(),
        teamId: z.string().uuid().optional(),
        // From a git repository: its progress streams on git.operation({ operationId }).
        gitUrl: gitUrl.optional(),
        branch: branchName.optional(),
        depth: z.number().int().min(1).max(1_000_000).optional(),
        credentialId: z.string().uuid().optional(),
        operationId: operationId.optional(),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const { db, files } = ctx.services;
      // In the given team (where the caller may write), else in the caller's personal team.
      const teamId = input.teamId ?? (await ensurePersonalTeam(db, ctx.user)).id;
      const membership = input.teamId ? await findTeamRole(db, input.teamId, ctx.user.id) : { role: "owner" as const };
      if (!membership) throw new TRPCError({ code: "NOT_FOUND", message: "No such team, or you are not in it." });
      if (membership.role === "viewer")
        throw new TRPCError({ code: "FORBIDDEN", message: "Viewers cannot create projects in this team." });
      const project = await projects.createProject(db, { name: input.name, ownerId: ctx.user.id, teamId });
      try {
        if (input.gitUrl) {
          const { gitUrl: url, branch, depth, credentialId } = input;
          const person = { id: ctx.user.id, name: ctx.user.name, email: ctx.user.email };
          await gitCall(() =>
            ctx.services.git.operations.run(input.operationId ?? crypto.randomUUID(), ctx.user.id, (signal, progress) =>
              ctx.services.git.clone(
                project,
                person,
                { url, branch, depth, credentialId },
                { signal, onProgress: (p) => progress({ kind: "progress", ...p }) },
              ),
            ),
          );
          // The repository's setup script and toolchains, made ready while the person looks around;
          // the run records its own failure on the project page.
          void ctx.services.environment.afterClone(project.id).catch(() => undefined);
        } else if (input.importPath) await files.importFrom(project.id, input.importPath);
        else await files.createEmpty(project.id);
      } catch (error) {
        // Nothing half-made stays: no row, no folder.
        await projects.deleteProject(db, project.id);
        await files.remove(project.id);
        if (error instanceof ImportNotAllowedError)
          throw new TRPCError({ code: "BAD_REQUEST", message: error.message });
        throw error;
      }
      return project;
    }),

  /** How long after the last edit the project's live documents save themselves; null: off. */
  autosave: projectProcedure.query(async ({ ctx }) => ({
    afterMs: await liveSettings.findAutosave(ctx.services.db, ctx.project.id),
  })),

  setAutosave: projectAdminProcedure.input(z.object({ afterMs: autosaveDelay })).mutation(async ({ ctx, input }) => {
    await liveSettings.setAutosave(ctx.services.db, ctx.project.id, input.afterMs);
    ctx.services.liveDocs.autosaveChanged(ctx.project.id);
    return input;
  }),

  rename: projectAdminProcedure
    .input(z.object({ name: projectName }))
    .mutation(({ ctx, input }) => projects.renameProject(ctx.services.db, ctx.project.id, input.name)),

  delete: projectAdminProcedure.mutation(async ({ ctx }) => {
    await removeProject(ctx.services, ctx.project.id);
    ctx.services.accessChanges.publish({ kind: "project", projectId: ctx.project.id });
    return { id: ctx.project.id };
  }),
});
