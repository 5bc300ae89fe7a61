import { TRPCError } from "@trpc/server";
import type { Db } from "@/server/db/client";
import { findProjectForUser, type Project, type ProjectRole } from "@/server/db/repositories/projects";
import { findShareLinkByToken, shareLinkMakerRole, type ShareLinkRow } from "@/server/db/repositories/share-links";
import { findSessionForUser, type AgentSessionRow } from "@/server/db/repositories/sessions";
import type { AppUser } from "@/server/db/repositories/users";
import { TOKEN_PATTERN } from "@/server/db/tokens";
import type { TokenGrant } from "@/server/auth/api-tokens";
import type { ApiTokenScope } from "@/lib/api-tokens";

// Who may do what: the one place a caller's access to a project or a session is decided. The
// procedure tiers in trpc.ts and the project sockets (server/http/project-sockets.ts) call these; nothing else
// looks at memberships or share links to grant access.
//
// A project's access is its team membership (owner, admin, member, viewer). A share link adds
// nothing to a project: it names one session. `view` lets anyone holding it watch that session
// and read the files it touched; `collaborate` lets signed-in members of the project's team
// (even viewers) send messages and answer approvals in it. Refusals say "not found" when the
// caller may not know the thing exists.
//
// A call made with an API token (server/auth/api-tokens.ts) is its person's, narrowed by the token's
// scopes: without `write` the person acts as a viewer, without `admin` an owner or admin acts as a
// member, and without `run` they cannot start or take part in agent sessions. The role every
// decision here returns is that acting role, so a terminal or language socket opened with a
// read-only token is read-only too.

export const WRITE_ROLES: readonly ProjectRole[] = ["owner", "admin", "member"];
export const ADMIN_ROLES: readonly ProjectRole[] = ["owner", "admin"];

export type Caller = {
  user: AppUser | null;
  /** The API token the call was made with; absent or null for a browser login. */
  token?: TokenGrant | null;
  shareToken?: string | null;
  services: { db: Db };
  /** The share token as already checked earlier in this same call (the base procedure, for mutations). */
  checkedLink?: LinkState | null;
};

/**
 * What a session procedure needs: `view` it (members, and holders of a share link to it), `read`
 * it as a team member, `write` it (rename, settings, review), or take part (`collaborate`: send, answer).
 */
export type SessionNeed = "view" | "read" | "write" | "collaborate";

export type SessionAccess = {
  session: AgentSessionRow;
  project: Project;
  /** The caller's role in the project's team; null for someone here only through a link. */
  role: ProjectRole | null;
  /** The live share link the caller came through, when it is for this session. */
  link: ShareLinkRow | null;
};

const notFound = (what: string) =>
  new TRPCError({ code: "NOT_FOUND", message: `No such ${what}, or you do not have access to it.` });
const signIn = () => new TRPCError({ code: "UNAUTHORIZED", message: "Sign in to continue." });
const readOnly = () => new TRPCError({ code: "FORBIDDEN", message: "Your role in this project is read-only." });
export const tokenLacks = (scope: ApiTokenScope) =>
  new TRPCError({ code: "FORBIDDEN", message: `This API token does not have the "${scope}" scope.` });

/** Whether the call may do what needs `scope`: a browser login all its person may, a token only its scopes. */
export function tokenAllows(caller: { token?: TokenGrant | null }, scope: ApiTokenScope): boolean {
  return !caller.token || caller.token.scopes.includes(scope);
}

/** The role a call acts with in a project or team: the person's, narrowed by the token's scopes. */
export function actingRole(role: ProjectRole, caller: { token?: TokenGrant | null }): ProjectRole {
  if (!tokenAllows(caller, "write")) return "viewer";
  if (!tokenAllows(caller, "admin") && ADMIN_ROLES.includes(role)) return "member";
  return role;
}

export type LinkState =
  | { ok: true; link: ShareLinkRow }
  | { ok: false; reason: "invalid" | "revoked" | "expired"; message: string };

export async function checkShareToken(db: Db, token: string): Promise<LinkState> {
  const link = TOKEN_PATTERN.test(token) ? await findShareLinkByToken(db, token) : null;
  if (!link) return { ok: false, reason: "invalid", message: "This share link is not valid." };
  if (link.revokedAt) return { ok: false, reason: "revoked", message: "This share link was revoked." };
  if (link.expiresAt <= new Date()) return { ok: false, reason: "expired", message: "This share link has expired." };
  // A link is its maker's word: it shows the session only while they could still share it (a
  // writer in its project's team, with an enabled account), so the links a member made before
  // being removed, demoted or disabled are no way to keep watching. Open connections re-check
  // when the maker's access changes (AccessHolder.linkMakerId).
  if (!(await makerStillShares(db, link)))
    return {
      ok: false,
      reason: "revoked",
      message: "This share link ended: whoever made it no longer works on this project.",
    };
  return { ok: true, link };
}

/** Whether the link's maker could still share its session: a writer in its project's team, enabled. */
export async function makerStillShares(db: Db, link: ShareLinkRow): Promise<boolean> {
  const role = await shareLinkMakerRole(db, link);
  return role !== null && (WRITE_ROLES as readonly string[]).includes(role);
}

/** The link a caller presents, checked once per call (never across calls, so a revocation counts at once). */
export async function callerLink(caller: Caller): Promise<LinkState | null> {
  if (caller.checkedLink !== undefined) return caller.checkedLink;
  return caller.shareToken ? checkShareToken(caller.services.db, caller.shareToken) : null;
}

/** `run`: start an agent session in the project (a writer's right, and a token's `run` scope). */
export type ProjectNeed = "read" | "write" | "admin" | "run";

export async function authorizeProject(caller: Caller, projectId: string, need: ProjectNeed) {
  if (!caller.user) throw signIn();
  const found = await findProjectForUser(caller.services.db, projectId, caller.user.id);
  if (!found) throw notFound("project");
  const role = actingRole(found.role, caller);
  if ((need === "write" || need === "run") && !WRITE_ROLES.includes(need === "run" ? found.role : role)) {
    throw WRITE_ROLES.includes(found.role) ? tokenLacks("write") : readOnly();
  }
  if (need === "run" && !tokenAllows(caller, "run")) throw tokenLacks("run");
  if (need === "admin" && !ADMIN_ROLES.includes(role)) {
    if (ADMIN_ROLES.includes(found.role)) throw tokenLacks(tokenAllows(caller, "write") ? "admin" : "write");
    throw new TRPCError({ code: "FORBIDDEN", message: "Only the team's owners and admins can change this." });
  }
  return { ...found, role };
}

export async function authorizeSession(caller: Caller, sessionId: string, need: SessionNeed): Promise<SessionAccess> {
  const db = caller.services.db;
  const [found, linkState] = await Promise.all([
    findSessionForUser(db, sessionId, caller.user?.id ?? null),
    callerLink(caller),
  ]);
  const session = found?.session ?? null;
  const member = found?.role ? { project: found.project, role: found.role } : null;
  const linked = session && linkState?.ok && linkState.link.sessionId === session.id ? linkState.link : null;
  // Only watching and taking part look at links; everything else is for the team alone.
  const link = need === "view" || need === "collaborate" ? linked : null;
  const project = member || link ? found!.project : null;
  if (!session || !project) {
    if (need === "view" && linkState && !linkState.ok && !member)
      throw new TRPCError({ code: "FORBIDDEN", message: linkState.message });
    if (!caller.user) throw signIn();
    throw notFound("session");
  }
  const access: SessionAccess = { session, project, role: member ? actingRole(member.role, caller) : null, link };
  if ((need === "view" || need === "read") && (member || link)) return access;
  // Taking part in a conversation is the token's `run` scope, not `write`.
  if (need === "collaborate" && !tokenAllows(caller, "run")) throw tokenLacks("run");
  const writer = member !== null && WRITE_ROLES.includes(need === "collaborate" ? member.role : access.role!);
  if (writer) return access;
  if (!caller.user) throw signIn();
  if (need === "collaborate" && link?.scope === "collaborate") {
    if (member) return access;
    throw new TRPCError({
      code: "FORBIDDEN",
      message: "Collaborate links are for members of the project's team. Ask its owner to add you.",
    });
  }
  if (!member)
    throw link ? new TRPCError({ code: "FORBIDDEN", message: "This share link is read-only." }) : notFound("session");
  throw WRITE_ROLES.includes(member.role) ? tokenLacks("write") : readOnly();
}

/** Whether this caller may answer the session's approvals (the per-session "who answers" setting). */
export function mayAnswerApprovals(access: SessionAccess, userId: string): boolean {
  return access.session.approvalsBy !== "author" || access.session.authorId === userId;
}

/** Typing in a shared terminal: writers, and only its owner unless the owner shared input. */
export function mayTypeInTerminal(
  role: ProjectRole,
  userId: string,
  terminal: { owner: { id: string } | null; inputShared: boolean },
): boolean {
  return (
    WRITE_ROLES.includes(role) && (terminal.owner === null || terminal.owner.id === userId || terminal.inputShared)
  );
}
