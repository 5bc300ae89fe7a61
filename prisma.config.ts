import { defineConfig } from "prisma/config";

// The CLI is only used for `prisma generate` (offline, see scripts/prisma-generate.mjs);
// migrations are applied by server/db/migrate.ts at start-up.
export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  datasource: { url: process.env.DATABASE_URL ?? "postgresql://localhost/tandem" },
});
