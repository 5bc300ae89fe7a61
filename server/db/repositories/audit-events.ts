import type { Prisma } from "@/generated/prisma/client";
import type { AuditAction, AuditEventView, AuditSearch } from "@/lib/audit";
import { auditOrigin, type AuditOrigin } from "@/server/db/audit-origin";
import type { Db } from "@/server/db/client";

// The audit log's rows. Append-only by construction: this file has no update, and its one delete
// is the retention purge, which the table's trigger (migration 20261129030000) allows only for rows
// older than the cut-off the purge sets in its own transaction.

export type AuditWhat = {
  teamId?: string | null;
  projectId?: string | null;
  /** What was acted on: a person's id, a link's, a host, a setting's key. */
  target?: string | null;
  detail?: Record<string, unknown>;
};

const MAX_TEXT = 500;
/** Detail keys whose values are never written: a web search key, an MCP server's environment or headers. */
const SECRET_KEY = /key|secret|token|password|authorization|cookie|credential/i;
const ALL_SECRET = /^(env|headers)$/i;

/** What a detail says, with the values of secret-looking keys (and of `env` and `headers` objects) replaced. */
export function withoutSecrets(value: unknown, depth = 0, hideAll = false): unknown {
  if (depth > 8) return "[deep]";
  if (Array.isArray(value)) return value.map((v) => withoutSecrets(v, depth + 1, hideAll));
  if (value && typeof value === "object")
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [
        k,
        (hideAll || SECRET_KEY.test(k)) && (typeof v !== "object" || v === null)
          ? "[redacted]"
          : withoutSecrets(v, depth + 1, hideAll || ALL_SECRET.test(k)),
      ]),
    );
  return value;
}
const clip = (value: string | null | undefined) => (value == null ? null : value.slice(0, MAX_TEXT));

/**
 * Records one action, by whoever the current call is (audit-origin.ts) unless `origin` says.
 * Never fails the action it records: a lost row is logged for the operator.
 */
export async function recordAudit(db: Db, action: AuditAction, what: AuditWhat = {}, origin?: AuditOrigin) {
  const by = origin ?? auditOrigin();
  try {
    await db.auditEvent.create({
      data: {
        action,
        actorId: by.actorId,
        actorEmail: clip(by.actorEmail),
        via: by.via,
        tokenId: by.tokenId ?? null,
        ip: clip(by.ip),
        forwardedFor: clip(by.forwardedFor),
        userAgent: clip(by.userAgent),
        teamId: what.teamId ?? null,
        projectId: what.projectId ?? null,
        target: clip(what.target),
        detail: withoutSecrets(what.detail ?? {}) as Prisma.InputJsonValue,
      },
      select: { id: true },
    });
  } catch (error) {
    console.error(`audit: could not record ${action}:`, error);
  }
}

function where(search: AuditSearch): Prisma.AuditEventWhereInput {
  const actor = search.actor?.trim();
  return {
    ...(actor ? { OR: [{ actorId: actor }, { actorEmail: { contains: actor, mode: "insensitive" } }] } : {}),
    ...(search.projectId ? { projectId: search.projectId } : {}),
    ...(search.teamId ? { teamId: search.teamId } : {}),
    ...(search.action ? { action: search.action } : {}),
    ...(search.from || search.to
      ? { at: { ...(search.from ? { gte: search.from } : {}), ...(search.to ? { lt: search.to } : {}) } }
      : {}),
  };
}

const view = (row: Prisma.AuditEventGetPayload<object>): AuditEventView => ({
  ...row,
  id: row.id.toString(),
  detail: (row.detail ?? {}) as Record<string, unknown>,
});

/** Newest first; `before`: the id of the last row of the previous page. */
export async function searchAudit(
  db: Db,
  search: AuditSearch,
  page: { limit: number; before?: string },
): Promise<AuditEventView[]> {
  const rows = await db.auditEvent.findMany({
    where: { ...where(search), ...(page.before ? { id: { lt: BigInt(page.before) } } : {}) },
    orderBy: { id: "desc" },
    take: page.limit,
  });
  return rows.map(view);
}

/** Deletes the rows older than `before` (the retention purge): the only delete the table's trigger lets through. */
export async function purgeAuditBefore(db: Db, before: Date): Promise<number> {
  const [, count] = await db.$transaction([
    db.$executeRaw`SELECT set_config('tandem.audit_purge_before', ${before.toISOString().replace("T", " ").replace("Z", "")}, true)`,
    db.$executeRaw`DELETE FROM "audit_event" WHERE "at" < ${before}`,
  ]);
  return count;
}
