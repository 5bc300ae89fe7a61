// `npm start`: whatever a first run needs, then the server. Generates the Prisma client when the
// schema changed, builds the Next app when the build is missing or older than its sources, and
// starts server/index.ts. With --dev, runs Next in development mode with hot reload instead.
import { spawnSync, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";

const dev = process.argv.includes("--dev");
const root = path.resolve(import.meta.dirname, "..");
process.chdir(root);

function run(command, args, env = {}) {
  const result = spawnSync(command, args, { stdio: "inherit", env: { ...process.env, ...env } });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

run(process.execPath, ["scripts/prisma-generate.mjs"]);

// The build depends on these; a change in any of them means the build is stale.
const buildInputs = ["app", "components", "lib", "public", "proxy.ts", "next.config.mjs", "package-lock.json", "tsconfig.json"];
function* files(entry) {
  if (!existsSync(entry)) return;
  if (statSync(entry).isFile()) return yield entry;
  for (const name of readdirSync(entry).sort()) yield* files(path.join(entry, name));
}
function sourceHash() {
  const hash = createHash("sha256");
  for (const input of buildInputs) {
    for (const file of files(input)) hash.update(file).update(readFileSync(file));
  }
  return hash.digest("hex");
}

if (!dev) {
  const stamp = ".next/tandem-build-hash";
  const hash = sourceHash();
  if (!existsSync(".next/BUILD_ID") || !existsSync(stamp) || readFileSync(stamp, "utf8") !== hash) {
    console.log("Building Tandem (first run or sources changed)...");
    run(process.execPath, ["node_modules/next/dist/bin/next", "build"], { NEXT_TELEMETRY_DISABLED: "1" });
    run(process.execPath, ["scripts/compress-static.mjs"]);
    writeFileSync(stamp, hash);
  }
}

const args = dev
  ? ["node_modules/tsx/dist/cli.mjs", "watch", "--clear-screen=false", "--exclude", "app/**", "--exclude", "components/**", "server/index.ts"]
  : ["--import", "tsx", "server/index.ts"];
const child = spawn(process.execPath, args, {
  stdio: "inherit",
  env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", NODE_ENV: dev ? "development" : "production", ...(dev ? { TANDEM_DEV: "1" } : {}) },
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
