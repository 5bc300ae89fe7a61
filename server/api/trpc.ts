import { initTRPC, TRPCError } from "@trpc/server";
import { z, ZodError } from "zod";
import {
  authorizeProject,
  actingRole,
  authorizeSession,
  callerLink,
  mayAnswerApprovals,
  tokenAllows,
  tokenLacks,
  WRITE_ROLES,
  type ProjectNeed,
  type SessionNeed,
} from "@/server/api/access";
import { findApproval } from "@/server/db/repositories/approvals";
import { findTeamRole } from "@/server/db/repositories/teams";
import { holdsAuthorsOwnSecrets } from "@/server/db/repositories/sessions";
import { requestOrigin } from "@/server/auth/request-origin";
import { withAuditOrigin } from "@/server/db/audit-origin";
import { GitError } from "@/server/git/errors";
import type { Watcher } from "@/server/bus/presence";
import type { AccessHolder } from "@/server/bus/access-changes";
import { untilAccessEnds } from "@/server/api/live";
import { wireTransformer } from "@/server/api/wire-transformer";
import { treeIdOf } from "@/lib/trees";
import { treeNameSchema } from "@/lib/tree-schemas";
import { credentialOf, type Context, type Services } from "@/server/api/context";

/** The caller as they are now: a connection's user is re-read, an in-process caller's is as given. */
async function freshCaller<C extends Context>(ctx: C): Promise<C> {
  return ctx.currentUser ? { ...ctx, user: await ctx.currentUser() } : ctx;
}

/**
 * A subscription's result, ended when a change concerning `holder` makes `recheck` refuse. The
 * project and session tiers wrap every subscription in it, so none keeps rights that were taken away.
 */
function endsWithAccess<R>(
  type: string,
  result: R,
  services: Services,
  holder: AccessHolder,
  recheck: () => Promise<unknown>,
): R {
  const live = result as { ok: boolean; data?: unknown };
  if (type !== "subscription" || !live.ok || !isAsyncIterator(live.data)) return result;
  return { ...live, data: untilAccessEnds(services.accessChanges, holder, recheck, live.data) } as R;
}

function isAsyncIterator(value: unknown): value is AsyncIterableIterator<unknown> {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { next?: unknown }).next === "function" &&
    Symbol.asyncIterator in value
  );
}

// `access: "public"` marks the few procedures anyone may call; the authorization test checks
// that every other procedure refuses anonymous callers. `tokenScope` is what a call made with an
// API token needs (server/api/access.ts): by default `read` for queries and subscriptions and `write`
// for mutations; `run` for taking part in agent sessions; `browser` refuses tokens altogether (the
// tokens themselves are managed only from a signed-in browser, so a leaked token cannot mint more).
export type Meta = { access?: "public"; tokenScope?: "run" | "browser" };

const t = initTRPC
  .context<Context>()
  .meta<Meta>()
  .create({
    transformer: wireTransformer,
    errorFormatter({ shape, error }) {
      const zodError = error.cause instanceof ZodError ? z.flattenError(error.cause) : null;
      // Which git failure it was (AUTH_FAILED, ...): the page offers what fixes it (a credential for the host).
      const gitError = error.cause instanceof GitError ? error.cause.code : null;
      return { ...shape, data: { ...shape.data, zodError, gitError, stack: undefined } };
    },
  });

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

// Every procedure starts here. A share token that is not a live `collaborate` link cannot reach a
// mutation, whatever the procedure: view links are read-only by construction, not by each rule.
const baseProcedure = t.procedure.use(async ({ ctx: given, type, next }) => {
  // Over a WebSocket, every call is made by whoever the login session names now.
  const ctx = given.currentUser && given.user && !given.userReadForCall ? await freshCaller(given) : given;
  if (type === "mutation" && ctx.shareToken) {
    const state = await callerLink(ctx);
    if (!state?.ok || state.link.scope !== "collaborate") {
      throw new TRPCError({
        code: "FORBIDDEN",
        message: state && !state.ok ? state.message : "A view link is read-only.",
      });
    }
    // The session tiers look at the same link; they take this check instead of a second lookup.
    return withAuditOrigin(originOf(ctx), () => next({ ctx: { ...ctx, checkedLink: state } }));
  }
  return withAuditOrigin(originOf(ctx), () => next({ ctx }));
});

/** Who the audit log names for what this call does (server/db/audit-origin.ts). */
function originOf(ctx: Context) {
  return requestOrigin(ctx.requestHeaders ?? new Headers(), {
    user: ctx.user,
    tokenId: ctx.token?.id,
    link: !!ctx.shareToken,
  });
}

export const publicProcedure = baseProcedure.meta({ access: "public" });

export const protectedProcedure = baseProcedure.use(({ ctx, meta, type, next }) => {
  if (!ctx.user) throw new TRPCError({ code: "UNAUTHORIZED", message: "Sign in to continue." });
  if (ctx.token) {
    if (meta?.tokenScope === "browser")
      throw new TRPCError({ code: "FORBIDDEN", message: "API tokens are managed from a signed-in browser only." });
    const scope = meta?.tokenScope ?? (type === "mutation" ? "write" : "read");
    if (!tokenAllows(ctx, scope)) throw tokenLacks(scope);
  }
  return next({ ctx: { ...ctx, user: ctx.user } });
});

export const adminProcedure = protectedProcedure.use(({ ctx, next }) => {
  if (ctx.user.role !== "admin") throw new TRPCError({ code: "FORBIDDEN", message: "Only an admin can do this." });
  if (!tokenAllows(ctx, "admin")) throw tokenLacks("admin");
  return next();
});

/** Procedures a signed-in browser alone may call (API tokens themselves). */
export const browserProcedure = protectedProcedure.meta({ tokenScope: "browser" });

// Resolves the project named by `projectId` and the caller's role in it (their role in the project's
// team). A project the caller may not see is reported as not found, so its existence does not leak.
const projectTier = (need: ProjectNeed) =>
  (need === "run" ? protectedProcedure.meta({ tokenScope: "run" }) : protectedProcedure)
    .input(z.object({ projectId: z.string().uuid("projectId must be a project id") }))
    .use(async ({ ctx, input, type, next }) => {
      const found = await authorizeProject(ctx, input.projectId, need);
      const result = await next({ ctx: { ...ctx, project: found.project, role: found.role } });
      const recheck = async () => authorizeProject(await freshCaller(ctx), input.projectId, need);
      return endsWithAccess(type, result, ctx.services, { ...credentialOf(ctx), projectId: found.project.id }, recheck);
    });

export const projectProcedure = projectTier("read");
export const projectMutationProcedure = projectTier("write");
/** Project settings, renaming and deleting: the team's owners and admins. */
export const projectAdminProcedure = projectTier("admin");
/** Starting an agent session: writers (and an API token's `run` scope). */
export const projectRunProcedure = projectTier("run");

// Procedures that work in the project's folder also get its Workspace: the main tree's, or with
// `tree` the worktree of one of the project's sessions (lib/trees.ts), for the same right on the
// project. The rest of the project procedures (settings, schedules, terminals list, ...) do not
// touch the disk.
const workspaceTier = (need: "read" | "write") =>
  projectTier(need)
    .input(z.object({ tree: treeNameSchema.optional() }))
    .use(async ({ ctx, input, next }) => {
      const tree = await ctx.services.trees.resolve(ctx.project.id, treeIdOf(input.tree));
      if (!tree)
        throw new TRPCError({
          code: "NOT_FOUND",
          message: "This project has no such tree: its session's branch may have been discarded. Switch to main.",
        });
      return next({ ctx: { ...ctx, tree, workspace: await ctx.services.files.openTree(tree) } });
    });

export const workspaceProcedure = workspaceTier("read");
export const workspaceMutationProcedure = workspaceTier("write");

const sessionIdInput = z.object({ sessionId: z.string().uuid("sessionId must be a session id") });
const sessionTier = (need: SessionNeed) =>
  (need === "collaborate" ? protectedProcedure.meta({ tokenScope: "run" }) : protectedProcedure)
    .input(sessionIdInput)
    .use(async ({ ctx, input, type, next }) => {
      const access = await authorizeSession(ctx, input.sessionId, need);
      const result = await next({
        ctx: {
          ...ctx,
          session: access.session,
          project: access.project,
          role: access.role ?? "viewer",
          link: access.link,
        },
      });
      const recheck = async () => authorizeSession(await freshCaller(ctx), input.sessionId, need);
      return endsWithAccess(
        type,
        result,
        ctx.services,
        {
          ...credentialOf(ctx),
          projectId: access.project.id,
          sessionId: access.session.id,
          linkMakerId: access.link?.createdById,
        },
        recheck,
      );
    });

// Procedures named by a session: the caller's access to the session's project decides.
export const sessionProcedure = sessionTier("read");
export const sessionMutationProcedure = sessionTier("write");
/** Taking part in the conversation: writers, and team members who came through a collaborate link. */
export const sessionCollaborateProcedure = sessionTier("collaborate");

/**
 * Watching a session: team members, and anyone holding a live share link to it (signed in or
 * not). Only what a share-link page needs is built on this tier.
 */
export const sessionViewProcedure = baseProcedure.input(sessionIdInput).use(async ({ ctx, input, type, next }) => {
  const access = await authorizeSession(ctx, input.sessionId, "view");
  const viewer: Watcher = ctx.user
    ? { key: `user:${ctx.user.id}`, userId: ctx.user.id, name: ctx.user.name, guest: access.role === null }
    : { key: `link:${access.link!.id}:${crypto.randomUUID()}`, userId: null, name: "Guest", guest: true };
  const result = await next({ ctx: { ...ctx, ...access, viewer } });
  // A signed-in watcher who signs out keeps watching only if a share link still lets them.
  const recheck = async () => authorizeSession(await freshCaller(ctx), input.sessionId, "view");
  return endsWithAccess(
    type,
    result,
    ctx.services,
    {
      ...credentialOf(ctx),
      projectId: access.project.id,
      sessionId: access.session.id,
      linkMakerId: access.link?.createdById,
    },
    recheck,
  );
});

/** Answering an approval request or question: take part in its session, and the session's setting allows it. */
export const approvalProcedure = protectedProcedure
  .meta({ tokenScope: "run" })
  .input(z.object({ approvalId: z.string().uuid("approvalId must be an approval id") }))
  .use(async ({ ctx, input, next }) => {
    // A real approval in a session the caller may not see is refused exactly like an id that names
    // nothing, so that answering does not tell which approval ids exist.
    const unknown = () =>
      new TRPCError({ code: "NOT_FOUND", message: "No such approval request, or you do not have access to it." });
    const approval = await findApproval(ctx.services.db, input.approvalId);
    if (!approval) throw unknown();
    const access = await authorizeSession(ctx, approval.sessionId, "collaborate").catch((error: unknown) => {
      throw error instanceof TRPCError && error.code === "NOT_FOUND" ? unknown() : error;
    });
    if (!mayAnswerApprovals(access, ctx.user.id)) {
      throw new TRPCError({ code: "FORBIDDEN", message: "In this session only its author answers approvals." });
    }
    // Approving is driving: a command approved here runs with the author's own secrets, which
    // nobody else's words or answers may drive (as a terminal holding them shares no input).
    if (access.session.authorId !== ctx.user.id && (await holdsAuthorsOwnSecrets(ctx.services.db, access.session))) {
      throw new TRPCError({
        code: "FORBIDDEN",
        message:
          "This session's commands run with its author's own secrets, so only its author answers its approvals. Write in the session to take part: its next turn then runs without them.",
      });
    }
    return next({ ctx: { ...ctx, approval, session: access.session } });
  });

// Procedures named by a team: its members, by their role in it.
const teamId = z.string().uuid("teamId must be a team id");
export const teamProcedure = protectedProcedure.input(z.object({ teamId })).use(async ({ ctx, input, next }) => {
  const found = await findTeamRole(ctx.services.db, input.teamId, ctx.user.id);
  if (!found) throw new TRPCError({ code: "NOT_FOUND", message: "No such team, or you are not in it." });
  // Handlers decide on `teamRole` (removing a member, leaving): it is the acting role, so an API
  // token without `admin` manages nobody, whatever its person's role.
  return next({ ctx: { ...ctx, team: found.team, teamRole: actingRole(found.role, ctx), personTeamRole: found.role } });
});

export const teamAdminProcedure = teamProcedure.use(({ ctx, next }) => {
  if (ctx.teamRole !== "owner" && ctx.teamRole !== "admin") {
    if (ctx.personTeamRole === "owner" || ctx.personTeamRole === "admin")
      throw tokenLacks(tokenAllows(ctx, "write") ? "admin" : "write");
    throw new TRPCError({
      code: "FORBIDDEN",
      message: "Only the team's owners and admins manage its members and settings.",
    });
  }
  return next();
});

/** What a team's members who can run commands may see (its secrets' names): not its viewers. */
export const teamWriterProcedure = teamProcedure.use(({ ctx, next }) => {
  if (!WRITE_ROLES.includes(ctx.teamRole)) {
    if (WRITE_ROLES.includes(ctx.personTeamRole)) throw tokenLacks("write");
    throw new TRPCError({ code: "FORBIDDEN", message: "Your role in this team is read-only." });
  }
  return next();
});
