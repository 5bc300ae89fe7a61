import { randomBytes } from "node:crypto";
import pg from "pg";
import { inject } from "vitest";
import { createDb, type Db } from "@/server/db/client";
import { migrate } from "@/server/db/migrate";

// A fresh, empty database on the test run's embedded PostgreSQL.
export async function createTestDatabase(options: { migrate?: boolean } = {}) {
  const serverUrl = inject("databaseUrl");
  const name = `test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = serverUrl.replace(/\/[^/]+$/, `/${name}`);
  if (options.migrate !== false) await migrate(url);
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
