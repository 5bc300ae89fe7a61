import { randomUUID } from "node:crypto";
import type { Db } from "@/server/db/client";
import { recordAudit } from "@/server/db/repositories/audit-events";

export type UserRole = "admin" | "user";
export type AppUser = { id: string; email: string; name: string; role: UserRole };

const userSelect = { id: true, email: true, name: true, role: true } as const;

export async function countUsers(db: Db) {
  return db.user.count();
}

export function toAppUser(user: { id: string; email: string; name: string; role?: string | null }): AppUser {
  return { id: user.id, email: user.email, name: user.name, role: user.role === "admin" ? "admin" : "user" };
}

export async function findUser(db: Db, id: string): Promise<AppUser | null> {
  const user = await db.user.findUnique({ where: { id }, select: userSelect });
  return user && toAppUser(user);
}

// The first account of an install becomes its admin. Done as one statement so two sign-ups racing
// on a fresh install cannot both become admin.
export async function promoteIfFirstUser(db: Db, userId: string): Promise<boolean> {
  const changed = await db.$executeRaw`
    UPDATE "user" SET "role" = 'admin'
    WHERE "id" = ${userId}
      AND NOT EXISTS (SELECT 1 FROM "user" WHERE "role" = 'admin' AND "id" <> ${userId})
      AND (SELECT count(*) FROM "user") = 1`;
  return changed === 1;
}

/** An account without a password, for a headless run of the agent (`npm run eval`): nobody signs in as it. */
export async function createHeadlessUser(db: Db, input: { name: string; email: string }): Promise<AppUser> {
  return toAppUser(
    await db.user.create({ data: { id: randomUUID(), name: input.name, email: input.email }, select: userSelect }),
  );
}

export type UserListing = AppUser & { createdAt: Date; disabledAt: Date | null };

/** Everyone with an account, for the admin page (teams' own accounts are on their team's page). */
export async function listUsers(db: Db): Promise<UserListing[]> {
  const rows = await db.user.findMany({
    where: { botTeamId: null },
    select: { ...userSelect, createdAt: true, disabledAt: true },
    orderBy: { createdAt: "asc" },
  });
  return rows.map((row) => ({ ...toAppUser(row), createdAt: row.createdAt, disabledAt: row.disabledAt }));
}

/** Whether the account is a team's own (a team token's or a webhook's), not a person's. */
export async function isTeamAccount(db: Db, id: string): Promise<boolean> {
  const user = await db.user.findUnique({ where: { id }, select: { botTeamId: true } });
  return !!user?.botTeamId;
}

/** False for a disabled account and for a team's own account (a token's or a webhook's): neither signs in. */
export async function maySignIn(db: Db, id: string): Promise<boolean> {
  const user = await db.user.findUnique({ where: { id }, select: { disabledAt: true, botTeamId: true } });
  return !!user && !user.disabledAt && !user.botTeamId;
}

/**
 * An account of a team's own (a team token's, a project webhook's), a member of that team with
 * `role` and of no other. Its address is in a reserved domain nobody can hold.
 */
export async function createTeamBot(
  db: Db,
  input: { teamId: string; name: string; role: "admin" | "member" | "viewer" },
): Promise<AppUser> {
  const id = randomUUID();
  return toAppUser(
    await db.user.create({
      data: {
        id,
        name: input.name,
        email: `bot-${id}@bots.tandem.invalid`,
        emailVerified: false,
        botTeamId: input.teamId,
        teamMemberships: { create: { teamId: input.teamId, role: input.role } },
      },
      select: userSelect,
    }),
  );
}

/**
 * Disables an account and ends its login sessions in one transaction (a sign-in racing with it
 * is refused by server/auth/auth.ts, which reads `disabledAt` before it makes a session), or
 * enables it again. False when there is no such account.
 */
export async function setUserDisabled(db: Db, id: string, disabled: boolean): Promise<boolean> {
  const changed = await db.$transaction(async (tx) => {
    const { count } = await tx.user.updateMany({ where: { id }, data: { disabledAt: disabled ? new Date() : null } });
    if (disabled) await tx.loginSession.deleteMany({ where: { userId: id } });
    return count === 1;
  });
  if (changed) await recordAudit(db, disabled ? "user.disabled" : "user.enabled", { target: id });
  return changed;
}

/**
 * Until when a login session lasts (milliseconds since the epoch), read now: null once it ended
 * (signed out, revoked, deleted with a disabled account, or expired). Using the IDE moves it on.
 */
export async function loginSessionLasts(db: Db, loginSessionId: string): Promise<number | null> {
  const [row] = await db.sql<{ expiresAt: Date }>`
    SELECT "expiresAt" FROM login_session WHERE id = ${loginSessionId} AND "expiresAt" > ${new Date()}`;
  return row ? row.expiresAt.getTime() : null;
}

/** The instance role the provider's groups give (server/auth/sso-groups.ts); true when it changed. */
export async function setInstanceRole(db: Db, id: string, role: UserRole): Promise<boolean> {
  const { count } = await db.user.updateMany({ where: { id, role: { not: role } }, data: { role } });
  return count === 1;
}

/** The instance's admins, who set budgets and prices: named in a refusal so people know whom to ask. */
export async function listAdmins(db: Db): Promise<Array<{ id: string; name: string; email: string }>> {
  return db.user.findMany({
    where: { role: "admin", disabledAt: null, botTeamId: null },
    select: { id: true, name: true, email: true },
    orderBy: { createdAt: "asc" },
  });
}

export async function findUserByEmail(db: Db, email: string): Promise<AppUser | null> {
  const row = await db.user.findFirst({ where: { email: { equals: email, mode: "insensitive" } }, select: userSelect });
  return row && toAppUser(row);
}

export async function findUserEmails(db: Db, ids: string[]): Promise<Map<string, string>> {
  const rows = await db.user.findMany({ where: { id: { in: ids } }, select: { id: true, email: true } });
  return new Map(rows.map((r) => [r.id, r.email]));
}
