import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { startEmbeddedPostgres } from "@/server/db/embedded";
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
  return async () => {
    await db.stop();
    await fs.rm(dataDir, { recursive: true, force: true });
  };
}

declare module "vitest" {
  export interface ProvidedContext {
    databaseUrl: string;
  }
}
