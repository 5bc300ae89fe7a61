import type { Db } from "@/server/db/client";

/**
 * Spends a one-time token: true the first time any instance spends it, false every time after,
 * however many race for it (the insert is the check). Tokens past their expiry are dropped first;
 * they fail their own expiry check by then.
 */
export async function spendToken(db: Db, token: string, expiresAt: Date): Promise<boolean> {
  await db.spentToken.deleteMany({ where: { expiresAt: { lt: new Date() } } });
  const inserted = await db.$executeRaw`
    INSERT INTO "spent_token" ("token", "expiresAt") VALUES (${token}, ${expiresAt})
    ON CONFLICT DO NOTHING`;
  return inserted === 1;
}
