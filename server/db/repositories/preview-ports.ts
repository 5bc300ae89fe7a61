import type { Db } from "@/server/db/client";
import { recordAudit } from "@/server/db/repositories/audit-events";
import { hashToken, newToken } from "@/server/db/tokens";

// Who may open a port's preview (preview_port) and its public links (preview_link): the rules
// that read them are in server/preview/preview-visibility.ts.

export type PreviewVisibility = "private" | "team";
export type PreviewLinkRow = {
  id: string;
  projectId: string;
  port: number;
  createdById: string | null;
  expiresAt: Date;
  revokedAt: Date | null;
  createdAt: Date;
};

const linkSelect = {
  id: true,
  projectId: true,
  port: true,
  createdById: true,
  expiresAt: true,
  revokedAt: true,
  createdAt: true,
} as const;

const asVisibility = (value: string | undefined): PreviewVisibility => (value === "team" ? "team" : "private");

/** The visibility of each of these ports (private when never set). */
export async function previewVisibilities(
  db: Db,
  projectId: string,
  ports: number[],
): Promise<Map<number, PreviewVisibility>> {
  const rows = ports.length
    ? await db.previewPort.findMany({
        where: { projectId, port: { in: ports } },
        select: { port: true, visibility: true },
      })
    : [];
  const found = new Map(rows.map((row) => [row.port, asVisibility(row.visibility)]));
  return new Map(ports.map((port) => [port, found.get(port) ?? "private"]));
}

/**
 * The person's role in the project and the port's visibility, in one statement (the preview
 * proxy asks on every request); null when they are not in the project's team.
 */
export async function previewAccess(
  db: Db,
  projectId: string,
  port: number,
  userId: string,
): Promise<{ role: string; visibility: PreviewVisibility } | null> {
  const [row] = await db.sql<{ role: string; visibility: string | null }>`
    SELECT m.role, v.visibility
    FROM project p
    JOIN team_member m ON m."teamId" = p."teamId" AND m."userId" = ${userId}
    LEFT JOIN preview_port v ON v."projectId" = p.id AND v.port = ${port}
    WHERE p.id = ${projectId}`;
  return row ? { role: row.role, visibility: asVisibility(row.visibility ?? undefined) } : null;
}

/**
 * Until when what a person's preview session is bound to lasts: the login session of theirs it was
 * opened under (null once signed out, revoked, deleted with a disabled account, or expired; its
 * expiry otherwise, which using the IDE moves on), or the agent session of the project whose
 * browser holds it (no expiry of its own: Infinity). Milliseconds since the epoch.
 */
export async function previewBindingLasts(
  db: Db,
  grant: { userId: string; projectId: string; by: { loginSessionId: string } | { agentSessionId: string } },
): Promise<number | null> {
  if ("loginSessionId" in grant.by) {
    const [row] = await db.sql<{ expiresAt: Date }>`
      SELECT "expiresAt" FROM login_session
      WHERE id = ${grant.by.loginSessionId} AND "userId" = ${grant.userId} AND "expiresAt" > ${new Date()}`;
    return row ? row.expiresAt.getTime() : null;
  }
  const [row] = await db.sql<{ live: number }>`
    SELECT 1 AS live FROM agent_session
    WHERE id = ${grant.by.agentSessionId} AND "projectId" = ${grant.projectId}`;
  return row ? Number.POSITIVE_INFINITY : null;
}

export async function setPreviewVisibility(db: Db, projectId: string, port: number, visibility: PreviewVisibility) {
  await db.previewPort.upsert({
    where: { projectId_port: { projectId, port } },
    create: { projectId, port, visibility },
    update: { visibility },
  });
  await recordAudit(db, "preview.visibility_changed", { projectId, target: String(port), detail: { visibility } });
}

/** Returns the token once; only its hash is stored. */
export async function createPreviewLink(
  db: Db,
  input: { projectId: string; port: number; createdById: string; expiresAt: Date },
) {
  const { token, hash } = newToken();
  const link = await db.previewLink.create({ data: { ...input, tokenHash: hash }, select: linkSelect });
  await recordAudit(db, "preview_link.created", {
    projectId: input.projectId,
    target: link.id,
    detail: { port: input.port, expiresAt: input.expiresAt.toISOString() },
  });
  return { link, token };
}

export async function listPreviewLinks(db: Db, projectId: string): Promise<PreviewLinkRow[]> {
  return db.previewLink.findMany({ where: { projectId }, select: linkSelect, orderBy: { createdAt: "desc" } });
}

/** False when the link was not live (already revoked, or not this project's). */
export async function revokePreviewLink(db: Db, projectId: string, id: string): Promise<boolean> {
  const { count } = await db.previewLink.updateMany({
    where: { id, projectId, revokedAt: null },
    data: { revokedAt: new Date() },
  });
  if (count === 1) await recordAudit(db, "preview_link.revoked", { projectId, target: id });
  return count === 1;
}

export async function findPreviewLinkByToken(db: Db, token: string): Promise<PreviewLinkRow | null> {
  return db.previewLink.findUnique({ where: { tokenHash: hashToken(token) }, select: linkSelect });
}

export async function findPreviewLink(db: Db, id: string): Promise<PreviewLinkRow | null> {
  return db.previewLink.findUnique({ where: { id }, select: linkSelect });
}

/**
 * The role the link's maker holds now in its project's team: null when they are no longer in it or
 * their account is disabled (server/preview/preview-visibility.ts decides what the link is worth).
 */
export async function previewLinkMakerRole(
  db: Db,
  link: Pick<PreviewLinkRow, "projectId" | "createdById">,
): Promise<string | null> {
  if (!link.createdById) return null;
  const [row] = await db.sql<{ role: string }>`
    SELECT m.role
    FROM project p
    JOIN team_member m ON m."teamId" = p."teamId" AND m."userId" = ${link.createdById}
    JOIN "user" u ON u.id = m."userId" AND u."disabledAt" IS NULL
    WHERE p.id = ${link.projectId}`;
  return row?.role ?? null;
}

/** Of these link ids, those that are no live preview link (revoked, gone, or never one). */
export async function endedPreviewLinkIds(db: Db, ids: string[]): Promise<string[]> {
  const live = await db.previewLink.findMany({ where: { id: { in: ids }, revokedAt: null }, select: { id: true } });
  const liveIds = new Set(live.map((row) => row.id));
  return ids.filter((id) => !liveIds.has(id));
}
