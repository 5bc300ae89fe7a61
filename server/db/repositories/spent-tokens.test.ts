import { randomBytes } from "node:crypto";
import { expect, it } from "vitest";
import { databaseForFile } from "@/server/test/database";
import { spendToken } from "./spent-tokens";

const database = databaseForFile();

it("spends every one of a flood of tokens at once while the expired ones are purged, and none twice", async () => {
  const { db } = database;
  for (let round = 0; round < 5; round++) {
    // Rows that expire while the flood runs: every statement of it tries to purge them.
    await db.$executeRaw`INSERT INTO "spent_token" ("token", "expiresAt")
      SELECT 'old-' || ${round}::text || '-' || g, now() AT TIME ZONE 'UTC' - interval '1 second'
      FROM generate_series(1, 2000) g`;
    const tokens = Array.from({ length: 300 }, () => randomBytes(12).toString("hex"));
    const expiry = new Date(Date.now() + 60_000);
    const spent = await Promise.all(tokens.map((token) => spendToken(db, token, expiry)));
    expect(spent.every(Boolean)).toBe(true);
    expect((await Promise.all(tokens.slice(0, 20).map((token) => spendToken(db, token, expiry)))).some(Boolean)).toBe(
      false,
    );
  }
  const [{ old }] = await db.$queryRaw<
    { old: bigint }[]
  >`SELECT count(*) AS old FROM "spent_token" WHERE "token" LIKE 'old-%'`;
  expect(Number(old)).toBe(0);
});
