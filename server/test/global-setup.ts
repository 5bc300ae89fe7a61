import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import pg from "pg";
import { startEmbeddedPostgres } from "@/server/db/embedded";
import { migrate } from "@/server/db/migrate";
import { bwrapAvailable } from "@/server/sandbox/launcher";

// One embedded PostgreSQL for the whole unit-test run; each test file makes its own database
// (server/test/database.ts), so files run in parallel without seeing each other's rows.
export default async function setup(project: TestProject) {
  if (!(await bwrapAvailable())) {
    console.warn(
      "\n!!! bubblewrap does not work here: the sandbox's isolation tests ([sandbox] suites) are SKIPPED and terminals run unsandboxed. Install it: apt-get install bubblewrap\n",
    );
  }
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "tandem-test-db-"));
  const db = await startEmbeddedPostgres(dataDir);
  project.provide("databaseUrl", db.url);
  // Migrated once: a test file's migrated database is a copy of this one (server/test/database.ts),
  // made in a fraction of the time applying every migration again takes, in each of a hundred files.
  const template = "test_migrated_template";
  const admin = new pg.Client({ connectionString: db.url });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${template}"`);
  await admin.end();
  await migrate(db.url.replace(/\/[^/]+$/, `/${template}`));
  project.provide("migratedTemplate", template);
  return async () => {
    await db.stop();
    await fs.rm(dataDir, { recursive: true, force: true });
  };
}

declare module "vitest" {
  export interface ProvidedContext {
    databaseUrl: string;
    migratedTemplate: string;
  }
}
