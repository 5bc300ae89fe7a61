import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, inject } from "vitest";
import { createDb, type Db } from "@/server/db/client";

// A fresh, empty database on the test run's embedded PostgreSQL.
export async function createTestDatabase(options: { migrate?: boolean } = {}) {
  const serverUrl = inject("databaseUrl");
  const name = `test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  // Migrated: a copy of the database the run migrated once (server/test/global-setup.ts).
  const template = options.migrate === false ? "" : ` TEMPLATE "${inject("migratedTemplate")}"`;
  await admin.query(`CREATE DATABASE "${name}"${template}`);
  await admin.end();
  const url = serverUrl.replace(/\/[^/]+$/, `/${name}`);
  let db: Db | undefined;
  return {
    url,
    get db() {
      db ??= createDb(url);
      return db;
    },
    async drop() {
      await db?.$disconnect();
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await client.end();
    },
  };
}

/** A test file's own database: made (then seeded) before its tests, dropped after them. */
export function databaseForFile(seed: (db: Db) => Promise<void> = async () => {}): { readonly db: Db } {
  let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  beforeAll(async () => {
    database = await createTestDatabase();
    await seed(database.db);
  });
  afterAll(async () => {
    await database?.drop();
  });
  return {
    get db() {
      return database!.db;
    },
  };
}

/** Ann, her team and its project "Shop": what a repository test needs to own a session. */
export async function seedProject(db: Db): Promise<string> {
  await db.user.create({ data: { id: "ann", name: "Ann", email: "ann@example.com" } });
  const team = await db.team.create({ data: { name: "Crew" } });
  return (await db.project.create({ data: { name: "Shop", ownerId: "ann", teamId: team.id } })).id;
}
