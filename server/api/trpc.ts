import { initTRPC, TRPCError } from "@trpc/server";
import superjson from "superjson";
import { z, ZodError } from "zod";
import type { Auth } from "@/server/auth/auth";
import type { Config } from "@/server/env";
import type { Db } from "@/server/db/client";
import { findProjectForUser, type ProjectRole } from "@/server/db/repositories/projects";
import type { AppUser } from "@/server/db/repositories/users";
import { findUser } from "@/server/db/repositories/users";
import type { ProjectFiles } from "@/server/services/project-files";
import type { TerminalService } from "@/server/terminal";
import type { AgentRuntime } from "@/server/agent/runtime";
import type { ModelRegistry } from "@/server/agent/providers";

export type Services = {
  config: Config;
  db: Db;
  auth: Auth;
  files: ProjectFiles;
  terminals: TerminalService;
  /** The agent runtime (sessions, turns, approvals, live streams) and the model registry. */
  agent: AgentRuntime;
  models: ModelRegistry;
};

export type Context = { user: AppUser | null; services: Services };

// Resolves the caller from the login-session cookie. Used for HTTP calls and WebSocket upgrades.
export async function createContext(services: Services, headers: Headers): Promise<Context> {
  const session = await services.auth.api.getSession({ headers }).catch(() => null);
  const user = session ? await findUser(services.db, session.user.id) : null;
  return { user, services };
}

// `access: "public"` marks the few procedures anyone may call; the authorization test checks
// that every other procedure refuses anonymous callers.
export type Meta = { access?: "public" };

const t = initTRPC
  .context<Context>()
  .meta<Meta>()
  .create({
    transformer: superjson,
    errorFormatter({ shape, error }) {
      const zodError = error.cause instanceof ZodError ? z.flattenError(error.cause) : null;
      return { ...shape, data: { ...shape.data, zodError, stack: undefined } };
    },
  });

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

export const publicProcedure = t.procedure.meta({ access: "public" });

export const protectedProcedure = t.procedure.use(({ ctx, next }) => {
  if (!ctx.user) throw new TRPCError({ code: "UNAUTHORIZED", message: "Sign in to continue." });
  return next({ ctx: { ...ctx, user: ctx.user } });
});

export const adminProcedure = protectedProcedure.use(({ ctx, next }) => {
  if (ctx.user.role !== "admin") throw new TRPCError({ code: "FORBIDDEN", message: "Only an admin can do this." });
  return next();
});

const WRITE_ROLES: ProjectRole[] = ["owner", "admin", "member"];

// Resolves the project named by `projectId` and the caller's role in it. A project the caller may
// not see is reported as not found, so its existence does not leak.
export const projectProcedure = protectedProcedure
  .input(z.object({ projectId: z.string().uuid("projectId must be a project id") }))
  .use(async ({ ctx, input, next }) => {
    const found = await findProjectForUser(ctx.services.db, input.projectId, ctx.user.id);
    if (!found) throw new TRPCError({ code: "NOT_FOUND", message: "No such project, or you do not have access to it." });
    const workspace = await ctx.services.files.open(found.project.id);
    return next({ ctx: { ...ctx, project: found.project, role: found.role, workspace } });
  });

export const projectMutationProcedure = projectProcedure.use(({ ctx, next }) => {
  if (!WRITE_ROLES.includes(ctx.role)) {
    throw new TRPCError({ code: "FORBIDDEN", message: "Your role in this project is read-only." });
  }
  return next();
});
