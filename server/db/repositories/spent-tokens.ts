import type { Db } from "@/server/db/client";

/**
 * Spends a one-time token: true the first time any instance spends it, false every time after,
 * however many race for it (the insert is the check). The database's clock alone says when a
 * token has expired, both for spending it and for forgetting it: with each instance's own clock,
 * one running ahead forgot a spent token that one running behind still took for unexpired, and
 * spent again. A token the database takes for expired is never spent (its instance's clock may
 * say otherwise); the expired ones are dropped in the same statement.
 */
export async function spendToken(db: Db, token: string, expiresAt: Date): Promise<boolean> {
  const inserted = await db.$executeRaw`
    WITH "forgotten" AS (DELETE FROM "spent_token" WHERE "expiresAt" < now() AT TIME ZONE 'UTC')
    INSERT INTO "spent_token" ("token", "expiresAt")
    SELECT ${token}, ${expiresAt} WHERE ${expiresAt} > now() AT TIME ZONE 'UTC'
    ON CONFLICT DO NOTHING`;
  return inserted === 1;
}
