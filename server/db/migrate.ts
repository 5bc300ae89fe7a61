import { createHash, randomUUID } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import pg from "pg";

// Applies prisma/migrations/<name>/migration.sql in order, each inside a transaction, recorded in
// `_prisma_migrations` exactly as Prisma Migrate records them, so that on a machine with the
// schema engine `prisma migrate status` agrees. Written by hand because the Prisma CLI cannot run
// migrations without downloading its engine (STACK.md). An advisory lock makes concurrent
// start-ups safe: the second waits, then finds nothing left to do.

const LOCK_KEY = 72_707_369; // an arbitrary constant shared by every Tandem process

const CREATE_TABLE = `
CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL,
  "logs" TEXT,
  "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

export type Migration = { name: string; sql: string; checksum: string };

export async function readMigrations(dir: string): Promise<Migration[]> {
  const entries = await fs.readdir(dir, { withFileTypes: true });
  const names = entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  return Promise.all(
    names.map(async (name) => {
      const sql = await fs.readFile(path.join(dir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    }),
  );
}

export class MigrationError extends Error {}

export async function migrate(databaseUrl: string, dir = path.resolve("prisma/migrations")): Promise<string[]> {
  const migrations = await readMigrations(dir);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const applied: string[] = [];
  try {
    await client.query("SELECT pg_advisory_lock($1)", [LOCK_KEY]);
    await client.query(CREATE_TABLE);
    const { rows } = await client.query<{ migration_name: string; checksum: string; finished_at: Date | null }>(
      `SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL`,
    );
    const done = new Map(rows.map((row) => [row.migration_name, row]));
    for (const migration of migrations) {
      const previous = done.get(migration.name);
      if (previous?.finished_at) {
        if (previous.checksum !== migration.checksum) {
          throw new MigrationError(
            `Migration ${migration.name} was changed after it was applied. Add a new migration instead of editing an applied one.`,
          );
        }
        continue;
      }
      await applyOne(client, migration);
      applied.push(migration.name);
    }
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [LOCK_KEY]).catch(() => {});
    await client.end();
  }
  return applied;
}

async function applyOne(client: pg.Client, migration: Migration) {
  const id = randomUUID();
  await client.query("BEGIN");
  try {
    await client.query(migration.sql);
    await client.query(
      `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, applied_steps_count)
       VALUES ($1, $2, now(), $3, 1)`,
      [id, migration.checksum, migration.name],
    );
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK");
    throw new MigrationError(`Migration ${migration.name} failed and was rolled back: ${(error as Error).message}`);
  }
}
