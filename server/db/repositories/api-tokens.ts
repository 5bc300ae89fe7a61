import type { Db } from "@/server/db/client";
import { recordAudit } from "@/server/db/repositories/audit-events";
import type { AuditOrigin } from "@/server/db/audit-origin";
import { toAppUser, type AppUser } from "@/server/db/repositories/users";
import { API_TOKEN_SCOPES, type ApiTokenScope } from "@/lib/api-tokens";

export type ApiTokenRow = {
  id: string;
  name: string;
  scopes: ApiTokenScope[];
  createdAt: Date;
  expiresAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
};

const select = {
  id: true,
  name: true,
  scopes: true,
  createdAt: true,
  expiresAt: true,
  lastUsedAt: true,
  revokedAt: true,
} as const;

const knownScopes = (scopes: string[]) =>
  scopes.filter((scope): scope is ApiTokenScope => (API_TOKEN_SCOPES as readonly string[]).includes(scope));
const asRow = (row: Omit<ApiTokenRow, "scopes"> & { scopes: string[] }): ApiTokenRow => ({
  ...row,
  scopes: knownScopes(row.scopes),
});

export async function createApiToken(
  db: Db,
  input: { userId: string; name: string; scopes: ApiTokenScope[]; expiresAt: Date; tokenHash: string },
): Promise<ApiTokenRow> {
  const row = asRow(await db.apiToken.create({ data: input, select }));
  await recordAudit(db, "api_token.created", {
    target: row.id,
    detail: { name: input.name, scopes: input.scopes, expiresAt: input.expiresAt.toISOString() },
  });
  return row;
}

export async function listApiTokens(db: Db, userId: string): Promise<ApiTokenRow[]> {
  return (await db.apiToken.findMany({ where: { userId }, select, orderBy: { createdAt: "desc" } })).map(asRow);
}

/** A team's tokens: each is the only token of an account of the team's own (server/auth/api-tokens.ts). */
export async function listTeamTokens(db: Db, teamId: string): Promise<ApiTokenRow[]> {
  return (
    await db.apiToken.findMany({ where: { user: { botTeamId: teamId } }, select, orderBy: { createdAt: "desc" } })
  ).map(asRow);
}

/**
 * Revokes a team's token and takes its account out of the team, in one transaction; false when the
 * token was not live or not this team's. Returns the account, whose open connections must re-check.
 */
export async function revokeTeamToken(db: Db, teamId: string, id: string): Promise<string | null> {
  return db.$transaction(async (tx) => {
    const token = await tx.apiToken.findFirst({
      where: { id, revokedAt: null, user: { botTeamId: teamId } },
      select: { userId: true },
    });
    if (!token) return null;
    await tx.apiToken.update({ where: { id }, data: { revokedAt: new Date() } });
    await tx.teamMember.deleteMany({ where: { teamId, userId: token.userId } });
    return token.userId;
  });
}

/** False when the token was not live or is not this person's. */
export async function revokeApiToken(db: Db, userId: string, id: string): Promise<boolean> {
  const { count } = await db.apiToken.updateMany({
    where: { id, userId, revokedAt: null },
    data: { revokedAt: new Date() },
  });
  if (count === 1) await recordAudit(db, "api_token.revoked", { target: id });
  return count === 1;
}

/** A live token by its hash, with its person as they are now, and until when it lasts. */
export async function findLiveApiToken(
  db: Db,
  tokenHash: string,
  now: Date,
): Promise<{ id: string; scopes: ApiTokenScope[]; user: AppUser; expiresAt: Date } | null> {
  const row = await db.apiToken.findUnique({
    where: { tokenHash },
    select: {
      id: true,
      scopes: true,
      expiresAt: true,
      revokedAt: true,
      user: { select: { id: true, email: true, name: true, role: true, disabledAt: true } },
    },
  });
  if (!row || row.revokedAt || row.expiresAt <= now || row.user.disabledAt) return null;
  return { id: row.id, scopes: knownScopes(row.scopes), user: toAppUser(row.user), expiresAt: row.expiresAt };
}

/**
 * Until when a token lasts (milliseconds since the epoch), read now: null once it ended (expired,
 * revoked, or its person disabled), as findLiveApiToken would refuse it.
 */
export async function apiTokenLasts(db: Db, id: string): Promise<number | null> {
  const row = await db.apiToken.findFirst({
    where: { id, revokedAt: null, expiresAt: { gt: new Date() }, user: { disabledAt: null } },
    select: { expiresAt: true },
  });
  return row ? row.expiresAt.getTime() : null;
}

/** Stamps the token's last use, and records it in the audit log (as often as the stamp: once a minute at most). */
export async function touchApiToken(db: Db, id: string, at: Date, origin: AuditOrigin): Promise<void> {
  await db.apiToken.updateMany({ where: { id }, data: { lastUsedAt: at } });
  await recordAudit(db, "api_token.used", { target: id }, origin);
}
