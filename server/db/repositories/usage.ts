import type { UsageRowView } from "@/lib/usage";
import type { Db } from "@/server/db/client";

// The usage ledger: one row per model step (server/services/spending.ts writes it as a step ends),
// and the sums the usage pages and budgets read.

export type UsageEntryInput = {
  sessionId: string;
  projectId: string;
  teamId: string;
  userId: string | null;
  model: string;
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  reasoningTokens: number;
  costUsd: number | null;
};

/** One row of a report: a day, and who, where and with which model, summed (lib/usage.ts, as the pages read it). */
export type UsageRow = UsageRowView;

/** Writes a step's row and lets go of its budget hold, together. */
export async function recordUsageEntry(db: Db, entry: UsageEntryInput, holdId: string | null): Promise<void> {
  await db.$transaction([
    db.usageEntry.create({ data: entry, select: { id: true } }),
    ...(holdId ? [db.budgetHold.deleteMany({ where: { id: holdId } })] : []),
  ]);
}

/**
 * Sums per day (UTC), team, project, person and model in [from, to); with `teamId`, one team's
 * only. Names are joined as they are now; a deleted project or person shows without one.
 */
export async function usageRows(db: Db, range: { from: Date; to: Date; teamId?: string }): Promise<UsageRow[]> {
  const rows = await db.sql<UsageRow & { steps: string | number }>`
    SELECT to_char(u."at", 'YYYY-MM-DD') AS day, u."teamId", t."name" AS "teamName", u."projectId",
           p."name" AS "projectName", u."userId", usr."email" AS "userEmail", u."model",
           count(*)::int AS steps, sum(u."inputTokens")::float8 AS "inputTokens",
           sum(u."outputTokens")::float8 AS "outputTokens", sum(u."cachedInputTokens")::float8 AS "cachedInputTokens",
           coalesce(sum(u."costUsd"), 0)::float8 AS "costUsd"
    FROM usage_entry u
    LEFT JOIN team t ON t.id = u."teamId"
    LEFT JOIN project p ON p.id = u."projectId"
    LEFT JOIN "user" usr ON usr.id = u."userId"
    WHERE u."at" >= ${range.from} AND u."at" < ${range.to}
      AND (${range.teamId ?? null}::text IS NULL OR u."teamId" = ${range.teamId ?? null}::text)
    GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
    ORDER BY 1, 2, 4, 6, 8`;
  return rows.map((row) => ({ ...row, steps: Number(row.steps) }));
}
