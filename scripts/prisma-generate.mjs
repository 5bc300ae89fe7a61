// Generates the Prisma client offline. Every Prisma CLI command first looks for the schema-engine
// binary and tries to download it; `generate` never runs it, so pointing
// PRISMA_SCHEMA_ENGINE_BINARY at any existing file lets it work without network (STACK.md).
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { createHash } from "node:crypto";

const schema = "prisma/schema.prisma";
const stamp = "generated/prisma/.schema-hash";
const hash = createHash("sha256").update(readFileSync(schema)).digest("hex");
const force = process.argv.includes("--force");

if (!force && existsSync(stamp) && readFileSync(stamp, "utf8") === hash) process.exit(0);

const env = { ...process.env, PRISMA_HIDE_UPDATE_MESSAGE: "1", CHECKPOINT_DISABLE: "1" };
if (!env.PRISMA_SCHEMA_ENGINE_BINARY) env.PRISMA_SCHEMA_ENGINE_BINARY = process.execPath;
const result = spawnSync(process.execPath, ["node_modules/prisma/build/index.js", "generate"], {
  stdio: "inherit",
  env,
});
if (result.status !== 0) process.exit(result.status ?? 1);
mkdirSync("generated/prisma", { recursive: true });
writeFileSync(stamp, hash);
