import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { createTestDatabase } from "@/server/test/database";
import { migrate, MigrationError } from "./migrate";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function emptyDatabase() {
  const database = await createTestDatabase({ migrate: false });
  cleanups.push(() => database.drop());
  return database;
}

async function query(url: string, sql: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

describe("migrate", () => {
  it("applies every migration once and records it like Prisma Migrate", async () => {
    const { url } = await emptyDatabase();
    const first = await migrate(url);
    expect(first.length).toBeGreaterThan(0);
    expect(await migrate(url)).toEqual([]);
    const rows = await query(url, `SELECT migration_name, checksum, finished_at FROM "_prisma_migrations"`);
    expect(rows.map((r) => r.migration_name)).toEqual(first);
    expect(rows.every((r) => r.finished_at && /^[0-9a-f]{64}$/.test(r.checksum))).toBe(true);
  });

  it("is safe when two processes start at once", async () => {
    const { url } = await emptyDatabase();
    const [a, b] = await Promise.all([migrate(url), migrate(url)]);
    // One process applied everything while the other waited on the lock and found nothing to do.
    expect([a.length, b.length].sort()).toEqual([0, Math.max(a.length, b.length)]);
    const rows = await query(url, `SELECT count(*)::int AS n FROM "_prisma_migrations"`);
    expect(rows[0].n).toBe(a.length + b.length);
  });

  it("rolls back a failing migration and refuses an edited one", async () => {
    const { url } = await emptyDatabase();
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "tandem-migrations-"));
    cleanups.push(() => fs.rm(dir, { recursive: true, force: true }));
    await fs.mkdir(path.join(dir, "1_ok"));
    await fs.writeFile(path.join(dir, "1_ok", "migration.sql"), `CREATE TABLE "a" ("id" INTEGER);`);
    await fs.mkdir(path.join(dir, "2_bad"));
    await fs.writeFile(path.join(dir, "2_bad", "migration.sql"), `CREATE TABLE "b" ("id" INTEGER); SELECT nope;`);
    await expect(migrate(url, dir)).rejects.toThrow(/2_bad failed and was rolled back/);
    const tables = await query(url, `SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1`);
    expect(tables.map((t) => t.tablename)).toEqual(["_prisma_migrations", "a"]);

    await fs.writeFile(path.join(dir, "1_ok", "migration.sql"), `CREATE TABLE "a" ("id" BIGINT);`);
    await fs.rm(path.join(dir, "2_bad"), { recursive: true });
    await expect(migrate(url, dir)).rejects.toThrow(MigrationError);
  });
});
