import type { Db } from "@/server/db/client";
import { recordAudit } from "@/server/db/repositories/audit-events";
import { hashToken, newToken } from "@/server/db/tokens";

// Teams, their members and invitation links. A project's access is its team's membership
// (findProjectForUser in projects.ts): this file is where roles are stored, not where they are checked.

export const TEAM_ROLES = ["owner", "admin", "member", "viewer"] as const;
export type TeamRole = (typeof TEAM_ROLES)[number];

/** Higher is more. */
export const roleRank = (role: TeamRole) => TEAM_ROLES.length - TEAM_ROLES.indexOf(role);
export const asRole = (value: string): TeamRole =>
  (TEAM_ROLES as readonly string[]).includes(value) ? (value as TeamRole) : "viewer";

export type TeamSummary = { id: string; name: string; personal: boolean; role: TeamRole; members: number };

/** Every user has one personal team, owned by them; made on first need (sign-up, first project). */
export async function ensurePersonalTeam(
  db: Db,
  user: { id: string; name?: string },
): Promise<{ id: string; name: string }> {
  const existing = await db.team.findFirst({
    where: { personal: true, members: { some: { userId: user.id, role: "owner" } } },
    select: { id: true, name: true },
    orderBy: { createdAt: "asc" },
  });
  if (existing) return existing;
  const name =
    user.name ?? (await db.user.findUnique({ where: { id: user.id }, select: { name: true } }))?.name ?? "My";
  return db.team.create({
    data: { name: `${name}'s projects`, personal: true, members: { create: { userId: user.id, role: "owner" } } },
    select: { id: true, name: true },
  });
}

export async function listTeamsForUser(db: Db, userId: string): Promise<TeamSummary[]> {
  const rows = await db.teamMember.findMany({
    where: { userId },
    select: {
      role: true,
      team: {
        select: {
          id: true,
          name: true,
          personal: true,
          _count: { select: { members: { where: { user: { botTeamId: null } } } } },
        },
      },
    },
    orderBy: [{ team: { personal: "desc" } }, { team: { name: "asc" } }],
  });
  return rows.map((r) => ({
    id: r.team.id,
    name: r.team.name,
    personal: r.team.personal,
    role: asRole(r.role),
    members: r.team._count.members,
  }));
}

export async function findTeamRole(
  db: Db,
  teamId: string,
  userId: string,
): Promise<{ team: { id: string; name: string; personal: boolean }; role: TeamRole } | null> {
  const row = await db.teamMember.findUnique({
    where: { teamId_userId: { teamId, userId } },
    select: { role: true, team: { select: { id: true, name: true, personal: true } } },
  });
  return row && { team: row.team, role: asRole(row.role) };
}

export async function createTeam(db: Db, input: { name: string; ownerId: string }) {
  const team = await db.team.create({
    data: { name: input.name, members: { create: { userId: input.ownerId, role: "owner" } } },
    select: { id: true, name: true, personal: true },
  });
  await recordAudit(db, "team.created", { teamId: team.id, target: input.ownerId, detail: { name: input.name } });
  return team;
}

export async function renameTeam(db: Db, teamId: string, name: string) {
  return db.team.update({ where: { id: teamId }, data: { name }, select: { id: true, name: true, personal: true } });
}

export async function listMembers(db: Db, teamId: string) {
  const rows = await db.teamMember.findMany({
    // The team's own accounts (its tokens and webhooks) are listed with what they belong to.
    where: { teamId, user: { botTeamId: null } },
    select: { role: true, createdAt: true, user: { select: { id: true, name: true, email: true } } },
    orderBy: { createdAt: "asc" },
  });
  return rows.map((r) => ({ ...r.user, role: asRole(r.role), joinedAt: r.createdAt }));
}

/** Adds a person with a role (or changes their role if they are already in the team). */
export async function addMember(db: Db, teamId: string, userId: string, role: TeamRole) {
  await db.teamMember.upsert({
    where: { teamId_userId: { teamId, userId } },
    create: { teamId, userId, role },
    update: { role },
  });
  await recordAudit(db, "team.member_added", { teamId, target: userId, detail: { role } });
}

export async function countOwners(db: Db, teamId: string) {
  return db.teamMember.count({ where: { teamId, role: "owner" } });
}

/**
 * Gives a member another role, or removes them (`null`), unless that leaves the team without an
 * owner (`last_owner`). Changes of one team's members run one at a time (the team's row is locked),
 * so two owners demoting each other, or one leaving while demoting the other, cannot both pass.
 */
async function changeMember(
  db: Db,
  teamId: string,
  userId: string,
  role: TeamRole | null,
): Promise<"changed" | "not_member" | "last_owner"> {
  return db.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT id FROM team WHERE id = ${teamId} FOR UPDATE`;
    const current = await tx.teamMember.findUnique({
      where: { teamId_userId: { teamId, userId } },
      select: { role: true },
    });
    if (!current) return "not_member";
    if (
      current.role === "owner" &&
      role !== "owner" &&
      (await tx.teamMember.count({ where: { teamId, role: "owner" } })) <= 1
    )
      return "last_owner";
    if (role) await tx.teamMember.update({ where: { teamId_userId: { teamId, userId } }, data: { role } });
    else await tx.teamMember.delete({ where: { teamId_userId: { teamId, userId } } });
    return "changed";
  });
}

export async function setMemberRole(db: Db, teamId: string, userId: string, role: TeamRole) {
  const result = await changeMember(db, teamId, userId, role);
  if (result === "changed") await recordAudit(db, "team.role_changed", { teamId, target: userId, detail: { role } });
  return result;
}

export async function removeMember(db: Db, teamId: string, userId: string) {
  const result = await changeMember(db, teamId, userId, null);
  if (result === "changed") await recordAudit(db, "team.member_removed", { teamId, target: userId });
  return result;
}

/**
 * The team a group mapping names, made on its first sign-on and found after by the mark it was
 * made with (`ssoTeam`), never by a team's name: anyone may make a team, or rename one, to a
 * mapped name, and the group's people (its admins among them) would have been put in a team its
 * maker owns. People's first sign-ons can race (a whole company the morning SSO goes live, on
 * several instances), so the lookup and the create run under a transaction-scoped advisory lock
 * on the name: the loser finds the winner's team.
 */
function findOrCreateMappedTeam(db: Db, name: string): Promise<{ id: string }> {
  return db.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`sso-team:${name}`}))`;
    return (
      (await tx.team.findUnique({ where: { ssoTeam: name }, select: { id: true } })) ??
      (await tx.team.create({ data: { name, ssoTeam: name }, select: { id: true } }))
    );
  });
}

/**
 * Makes the person's memberships of the teams the provider's groups name match `grants` (team
 * name → role): added, re-roled, or removed when no group grants one. Each mapped team is the one
 * the mapping made (findOrCreateMappedTeam). An owner stays an owner: ownership is given in
 * Tandem. True when anything changed.
 */
export async function syncGroupTeams(
  db: Db,
  userId: string,
  managedTeams: string[],
  grants: Map<string, TeamRole>,
): Promise<boolean> {
  let changed = false;
  for (const name of managedTeams) {
    const team = await findOrCreateMappedTeam(db, name);
    const current = await findTeamRole(db, team.id, userId);
    if (current?.role === "owner") continue;
    const role = grants.get(name);
    if (role && current?.role !== role) {
      await addMember(db, team.id, userId, role);
      changed = true;
    } else if (!role && current) {
      await removeMember(db, team.id, userId);
      changed = true;
    }
  }
  return changed;
}

export async function createTeamInvite(
  db: Db,
  input: { teamId: string; role: TeamRole; email?: string; createdById: string; ttlDays?: number },
) {
  const { token, hash } = newToken();
  const expiresAt = new Date(Date.now() + (input.ttlDays ?? 7) * 86_400_000);
  const invite = await db.teamInvite.create({
    data: {
      teamId: input.teamId,
      tokenHash: hash,
      role: input.role,
      email: input.email?.toLowerCase(),
      createdById: input.createdById,
      expiresAt,
    },
    select: { id: true, role: true, email: true, expiresAt: true, createdAt: true },
  });
  await recordAudit(db, "team.invite_created", {
    teamId: input.teamId,
    target: invite.id,
    detail: { role: input.role, email: invite.email, expiresAt: expiresAt.toISOString() },
  });
  return { ...invite, role: asRole(invite.role), token };
}

/** The links that still let someone in (their makers still manage the team: mayStillInvite). */
export async function listTeamInvites(db: Db, teamId: string) {
  const [rows, managers] = await Promise.all([
    db.teamInvite.findMany({
      where: { teamId, usedAt: null, revokedAt: null, expiresAt: { gt: new Date() } },
      select: { id: true, role: true, email: true, expiresAt: true, createdAt: true, createdById: true },
      orderBy: { createdAt: "desc" },
    }),
    db.teamMember.findMany({
      where: { teamId, role: { in: ["owner", "admin"] }, user: { disabledAt: null } },
      select: { userId: true },
    }),
  ]);
  const live = new Set(managers.map((m) => m.userId));
  return rows
    .filter((r) => r.createdById !== null && live.has(r.createdById))
    .map(({ createdById: _maker, ...r }) => ({ ...r, role: asRole(r.role) }));
}

export async function revokeTeamInvite(db: Db, teamId: string, id: string) {
  const { count } = await db.teamInvite.updateMany({
    where: { id, teamId, usedAt: null, revokedAt: null },
    data: { revokedAt: new Date() },
  });
  if (count) await recordAudit(db, "team.invite_revoked", { teamId, target: id });
}

export type TeamInviteCheck =
  | { ok: true; id: string; team: { id: string; name: string }; role: TeamRole; email: string | null }
  | { ok: false; reason: string };

export async function checkTeamInvite(db: Db, token: string): Promise<TeamInviteCheck> {
  const invite = await db.teamInvite.findUnique({
    where: { tokenHash: hashToken(token) },
    select: {
      id: true,
      role: true,
      email: true,
      expiresAt: true,
      usedAt: true,
      revokedAt: true,
      createdById: true,
      team: { select: { id: true, name: true } },
    },
  });
  if (!invite || invite.revokedAt)
    return { ok: false, reason: "This invitation link is not valid (it may have been revoked)." };
  if (invite.usedAt)
    return { ok: false, reason: "This invitation link has already been used. Ask a team admin for a new one." };
  if (invite.expiresAt < new Date())
    return { ok: false, reason: "This invitation link has expired. Ask a team admin for a new one." };
  if (!(await mayStillInvite(db, invite.team.id, invite.createdById)))
    return {
      ok: false,
      reason:
        "This invitation link is no longer valid: whoever made it no longer manages the team. Ask a team admin for a new one.",
    };
  return { ok: true, id: invite.id, team: invite.team, role: asRole(invite.role), email: invite.email };
}

/**
 * An invitation is its maker's word: it lets someone in only while they are still an owner or admin
 * of the team and their account is not disabled, so links an admin minted before their removal,
 * demotion or disabling are no way back in for them or anyone they hand one to.
 */
async function mayStillInvite(db: Db, teamId: string, makerId: string | null): Promise<boolean> {
  if (!makerId) return false;
  const maker = await db.teamMember.findUnique({
    where: { teamId_userId: { teamId, userId: makerId } },
    select: { role: true, user: { select: { disabledAt: true } } },
  });
  return !!maker && (maker.role === "owner" || maker.role === "admin") && !maker.user.disabledAt;
}

/**
 * Uses an invitation: marks it used and adds the user with its role (keeping a higher role they
 * already have). False when someone else used it first.
 */
export async function acceptTeamInvite(
  db: Db,
  inviteId: string,
  teamId: string,
  userId: string,
  role: TeamRole,
): Promise<boolean> {
  const joined = await db.$transaction(async (tx) => {
    const { count } = await tx.teamInvite.updateMany({
      where: { id: inviteId, usedAt: null, revokedAt: null },
      data: { usedAt: new Date(), usedById: userId },
    });
    if (count !== 1) return false;
    const current = await tx.teamMember.findUnique({
      where: { teamId_userId: { teamId, userId } },
      select: { role: true },
    });
    if (!current) await tx.teamMember.create({ data: { teamId, userId, role } });
    else if (roleRank(asRole(current.role)) < roleRank(role))
      await tx.teamMember.update({ where: { teamId_userId: { teamId, userId } }, data: { role } });
    return true;
  });
  if (joined)
    await recordAudit(db, "team.member_added", { teamId, target: userId, detail: { role, invite: inviteId } });
  return joined;
}

export type TeamInviteClaim = { id: string; teamId: string; role: TeamRole };

/**
 * Takes an invitation for a sign-up (server/auth/auth.ts), before the account exists: checks it and
 * marks it used in one statement, so of two sign-ups with one link only one gets in.
 */
export async function claimTeamInvite(
  db: Db,
  token: string,
  email: string,
): Promise<({ ok: true } & TeamInviteClaim) | { ok: false; reason: string }> {
  const check = await checkTeamInvite(db, token);
  if (!check.ok) return check;
  if (check.email && check.email !== email.toLowerCase())
    return { ok: false, reason: "This invitation was made for another email address." };
  const { count } = await db.teamInvite.updateMany({
    where: { id: check.id, usedAt: null, revokedAt: null, expiresAt: { gt: new Date() } },
    data: { usedAt: new Date() },
  });
  if (count !== 1) return { ok: false, reason: "This invitation link has just been used by someone else." };
  return { ok: true, id: check.id, teamId: check.team.id, role: check.role };
}

/** The account made with a claimed invitation joins its team, with the invitation's role. */
export async function joinByClaimedInvite(db: Db, claim: TeamInviteClaim, userId: string) {
  await db.$transaction([
    db.teamInvite.update({ where: { id: claim.id }, data: { usedById: userId } }),
    db.teamMember.create({ data: { teamId: claim.teamId, userId, role: claim.role } }),
  ]);
  await recordAudit(db, "team.member_added", {
    teamId: claim.teamId,
    target: userId,
    detail: { role: claim.role, invite: claim.id },
  });
}

/** The internal hosts and ranges the team's projects may reach (egress-policy.ts internalHostEntry). */
export async function getTeamInternalHosts(db: Db, teamId: string): Promise<string[]> {
  const row = await db.team.findUnique({ where: { id: teamId }, select: { internalHosts: true } });
  return row?.internalHosts ?? [];
}

export async function setTeamInternalHosts(db: Db, teamId: string, entries: string[]): Promise<string[]> {
  const row = await db.team.update({
    where: { id: teamId },
    data: { internalHosts: [...new Set(entries)] },
    select: { internalHosts: true },
  });
  await recordAudit(db, "team.internal_hosts_changed", { teamId, detail: { entries: row.internalHosts } });
  return row.internalHosts;
}

export async function findTeamName(db: Db, teamId: string): Promise<string | null> {
  return (await db.team.findUnique({ where: { id: teamId }, select: { name: true } }))?.name ?? null;
}

/** Every team, by name (personal ones too): what an admin sets budgets on. */
export async function listAllTeams(db: Db): Promise<Array<{ id: string; name: string; personal: boolean }>> {
  return db.team.findMany({ select: { id: true, name: true, personal: true }, orderBy: { name: "asc" } });
}
