import type { Db } from "@/server/db/client";
import { recordAudit } from "@/server/db/repositories/audit-events";
import { hashToken, newToken } from "@/server/db/tokens";

export type ShareScope = "view" | "collaborate";
export type ShareLinkRow = {
  id: string;
  sessionId: string;
  scope: ShareScope;
  label: string;
  createdById: string | null;
  expiresAt: Date;
  revokedAt: Date | null;
  createdAt: Date;
};

const select = {
  id: true,
  sessionId: true,
  scope: true,
  label: true,
  createdById: true,
  expiresAt: true,
  revokedAt: true,
  createdAt: true,
} as const;
const asRow = (row: Omit<ShareLinkRow, "scope"> & { scope: string }): ShareLinkRow => ({
  ...row,
  scope: row.scope === "collaborate" ? "collaborate" : "view",
});

/** Returns the token once; only its hash is stored. */
export async function createShareLink(
  db: Db,
  input: { sessionId: string; scope: ShareScope; label: string; createdById: string; expiresAt: Date },
) {
  const { token, hash } = newToken();
  const row = await db.shareLink.create({ data: { ...input, tokenHash: hash }, select });
  await recordAudit(db, "share_link.created", {
    projectId: await sessionProject(db, input.sessionId),
    target: row.id,
    detail: {
      sessionId: input.sessionId,
      scope: input.scope,
      label: input.label,
      expiresAt: input.expiresAt.toISOString(),
    },
  });
  return { link: asRow(row), token };
}

export async function listShareLinks(db: Db, sessionId: string): Promise<ShareLinkRow[]> {
  return (await db.shareLink.findMany({ where: { sessionId }, select, orderBy: { createdAt: "desc" } })).map(asRow);
}

/** False when the link was not live (already revoked, or not this session's). */
export async function revokeShareLink(db: Db, sessionId: string, id: string): Promise<boolean> {
  const { count } = await db.shareLink.updateMany({
    where: { id, sessionId, revokedAt: null },
    data: { revokedAt: new Date() },
  });
  if (count === 1)
    await recordAudit(db, "share_link.revoked", {
      projectId: await sessionProject(db, sessionId),
      target: id,
      detail: { sessionId },
    });
  return count === 1;
}

async function sessionProject(db: Db, sessionId: string): Promise<string | null> {
  return (
    (await db.agentSession.findUnique({ where: { id: sessionId }, select: { projectId: true } }))?.projectId ?? null
  );
}

export async function findShareLinkByToken(db: Db, token: string): Promise<ShareLinkRow | null> {
  const row = await db.shareLink.findUnique({ where: { tokenHash: hashToken(token) }, select });
  return row && asRow(row);
}

/**
 * The role the link's maker holds now in the team of its session's project: null when they are no
 * longer in it or their account is disabled (server/api/access.ts decides what a link is worth with it).
 */
export async function shareLinkMakerRole(db: Db, link: Pick<ShareLinkRow, "sessionId" | "createdById">) {
  if (!link.createdById) return null;
  const [row] = await db.sql<{ role: string }>`
    SELECT m.role
    FROM agent_session s
    JOIN project p ON p.id = s."projectId"
    JOIN team_member m ON m."teamId" = p."teamId" AND m."userId" = ${link.createdById}
    JOIN "user" u ON u.id = m."userId" AND u."disabledAt" IS NULL
    WHERE s.id = ${link.sessionId}`;
  return row?.role ?? null;
}

/** Of these link ids, those no longer live: revoked, or gone with their session. */
export async function endedShareLinkIds(db: Db, ids: string[]): Promise<string[]> {
  const live = await db.shareLink.findMany({ where: { id: { in: ids }, revokedAt: null }, select: { id: true } });
  const liveIds = new Set(live.map((row) => row.id));
  return ids.filter((id) => !liveIds.has(id));
}
