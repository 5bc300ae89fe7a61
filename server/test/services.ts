import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Context, Services } from "@/server/api/trpc";
import { createAuth } from "@/server/auth/auth";
import { loadConfig } from "@/server/env";
import { createProjectFiles } from "@/server/services/project-files";
import { createTerminalService } from "@/server/terminal";
import { createTestDatabase } from "./database";

// The API's services on a fresh database and data directory, for integration tests.
export async function createTestServices(options: { importRoots?: string[] } = {}) {
  const database = await createTestDatabase();
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "tandem-test-data-"));
  const config = { ...loadConfig({ TANDEM_DATA_DIR: dataDir }), importRoots: options.importRoots ?? [] };
  const auth = createAuth({ db: database.db, secret: "x".repeat(32), secureCookies: false });
  const terminals = createTerminalService({ sandboxMode: "none" });
  const services: Services = {
    config,
    db: database.db,
    auth,
    files: createProjectFiles(dataDir, config.importRoots),
    terminals,
  };

  let userCount = 0;
  return {
    services,
    dataDir,
    async createUser(role: "admin" | "user" = "user") {
      userCount += 1;
      const user = await database.db.user.create({
        data: { id: `user-${userCount}-${Date.now()}`, name: `User ${userCount}`, email: `u${userCount}-${Date.now()}@example.com`, role },
        select: { id: true, email: true, name: true, role: true },
      });
      return { ...user, role } as NonNullable<Context["user"]>;
    },
    context(user: Context["user"]): Context {
      return { user, services };
    },
    async dispose() {
      terminals.disposeAll();
      await database.drop();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}
