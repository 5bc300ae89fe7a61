// `npm start`: whatever a first run needs, then the server. Generates the Prisma client when the
// schema changed, builds the Next app when the build is missing or older than its sources, and
// starts server/index.ts in this same process. With --dev, runs Next in development mode with hot
// reload instead, in a child process that restarts on changes. With --build-only, stops once the
// build is ready (the browser tests build first, so a slow build never eats the server's start-up wait).
import { spawnSync, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import nodeModule from "node:module";
import path from "node:path";

const dev = process.argv.includes("--dev");
/** How tsx ends the code of a module it transpiled: its source map, inline. */
const INLINE_SOURCE_MAP = "\n//# sourceMappingURL=data:application/json;base64,";
const buildOnly = process.argv.includes("--build-only");
const root = path.resolve(import.meta.dirname, "..");
process.chdir(root);

function run(command, args, env = {}) {
  const result = spawnSync(command, args, { stdio: "inherit", env: { ...process.env, ...env } });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

run(process.execPath, ["scripts/prisma-generate.mjs"]);
// The sandbox's native module (egress proxy); without it projects get no network, said at start-up.
spawnSync(process.execPath, ["scripts/build-native.mjs"], { stdio: "inherit" });

// The build depends on these; a change in any of them means the build is stale.
const buildInputs = [
  "app",
  "components",
  "lib",
  "public",
  "proxy.ts",
  "next.config.mjs",
  "package-lock.json",
  "tsconfig.json",
  "scripts/prepare-static.mjs",
];
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
    run(process.execPath, ["scripts/prepare-static.mjs"]);
    writeFileSync(stamp, hash);
  }
}
if (buildOnly) process.exit(0);

if (dev) {
  // tsx watch restarts the server on every change, so the server is a process of its own.
  const args = [
    "node_modules/tsx/dist/cli.mjs",
    "watch",
    "--clear-screen=false",
    "--exclude",
    "app/**",
    "--exclude",
    "components/**",
    "server/index.ts",
  ];
  const child = spawn(process.execPath, args, {
    stdio: "inherit",
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", NODE_ENV: "development", TANDEM_DEV: "1" },
  });
  for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
} else {
  // This process becomes the server: a launcher waiting beside it would hold ~50 MB for nothing.
  // Next reads NODE_ENV when it loads, so it is set before anything imports it.
  process.env.NODE_ENV = "production";
  process.env.NEXT_TELEMETRY_DISABLED = "1";
  await import("tsx");
  // tsx turns on source maps, and Node then reads and keeps the map of every module it loads,
  // Next's large bundles included: ~45 MB of heap for stack traces that point into .ts files
  // rather than the transpiled code. `NODE_OPTIONS=--enable-source-maps npm start` keeps them.
  if (
    !process.execArgv.includes("--enable-source-maps") &&
    !process.env.NODE_OPTIONS?.includes("--enable-source-maps")
  ) {
    process.setSourceMapsEnabled(false);
    // tsx still appends each module's map to its code (base64, the .ts source inside), and V8
    // keeps that text and Node a copy of the map's URL for the life of the process: 10 MB of the
    // idle server's heap for maps nothing reads now. Dropped as each module loads (Node 22.15+).
    nodeModule.registerHooks?.({
      load(url, context, nextLoad) {
        const loaded = nextLoad(url, context);
        const at = typeof loaded.source === "string" ? loaded.source.lastIndexOf(INLINE_SOURCE_MAP) : -1;
        // As bytes: a slice of the string would keep the whole of it (V8 slices point into their parent).
        return at < 0 ? loaded : { ...loaded, source: Buffer.from(loaded.source.slice(0, at)) };
      },
    });
  }
  await import("../server/index.ts");
}
