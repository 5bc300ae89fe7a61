// Runs the browser tests against a fresh Tandem: free ports, a temporary data directory (with
// its own embedded Postgres), removed afterwards, and the scripted model server
// (e2e/fixtures/model-server) as the agent's OpenAI-compatible provider; specs pick its scenario
// through its control port. Extra arguments go to `playwright test`.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { freePort } from "./free-port.mjs";

// Build before Playwright starts the server: its start-up wait then covers start-up only.
const build = spawnSync(process.execPath, ["scripts/start.mjs", "--build-only"], { stdio: "inherit" });
if (build.status !== 0) process.exit(build.status ?? 1);

const port = await freePort();
const modelPort = await freePort();
const controlPort = await freePort();
// Where e2e/11-git.spec.ts serves GitHub's pulls endpoint (TANDEM_GIT_FORGES in playwright.config.ts).
const forgePort = await freePort();
const dataDir = mkdtempSync(path.join(os.tmpdir(), "tandem-e2e-"));
const importRoot = mkdtempSync(path.join(os.tmpdir(), "tandem-e2e-import-"));

const modelServer = spawn(
  process.execPath,
  [
    "--import",
    "tsx",
    "e2e/fixtures/model-server/cli.ts",
    "--port",
    String(modelPort),
    "--control-port",
    String(controlPort),
  ],
  { stdio: ["ignore", "pipe", "inherit"] },
);
await new Promise((resolve, reject) => {
  const lines = readline.createInterface({ input: modelServer.stdout });
  lines.on("line", (line) => line.startsWith("model-server ready") && resolve());
  modelServer.on("exit", (code) => reject(new Error(`the scripted model server exited (${code}) before it was ready`)));
});

// The OpenID provider of the single sign-on spec: it must know Tandem's callback, so Tandem's port first.
const oidcPort = await freePort();
const oidcProvider = spawn(
  process.execPath,
  [
    "--import",
    "tsx",
    "e2e/fixtures/oidc-provider-cli.ts",
    "--port",
    String(oidcPort),
    "--tandem",
    `http://127.0.0.1:${port}`,
  ],
  { stdio: ["ignore", "pipe", "inherit"] },
);
await new Promise((resolve, reject) => {
  const lines = readline.createInterface({ input: oidcProvider.stdout });
  lines.on("line", (line) => line.startsWith("oidc-provider ready") && resolve());
  oidcProvider.on("exit", (code) => reject(new Error(`the OpenID provider exited (${code}) before it was ready`)));
});

// Without a working bubblewrap the server would refuse to start terminals (it fails closed): the
// browser tests then run it unsandboxed, loudly, and skip the specs that prove the sandbox.
const bwrapWorks =
  spawnSync("bwrap", ["--unshare-all", "--ro-bind", "/", "/", "true"], { stdio: "ignore" }).status === 0;
if (!bwrapWorks) {
  console.warn(
    "\n!!! bubblewrap does not work here: the browser tests run Tandem with TANDEM_SANDBOX=none and SKIP the sandbox's own specs. Install it: apt-get install bubblewrap\n",
  );
}

const result = spawnSync(process.execPath, ["node_modules/@playwright/test/cli.js", "test", ...process.argv.slice(2)], {
  stdio: "inherit",
  env: {
    ...process.env,
    E2E_PORT: String(port),
    E2E_DATA_DIR: dataDir,
    E2E_IMPORT_ROOT: importRoot,
    E2E_MODEL_PORT: String(modelPort),
    E2E_MODEL_CONTROL_PORT: String(controlPort),
    E2E_FORGE_PORT: String(forgePort),
    E2E_OIDC_PORT: String(oidcPort),
    ...(bwrapWorks ? {} : { E2E_SANDBOX: "none" }),
    NEXT_TELEMETRY_DISABLED: "1",
  },
});
modelServer.kill("SIGTERM");
oidcProvider.kill("SIGTERM");
rmSync(dataDir, { recursive: true, force: true });
rmSync(importRoot, { recursive: true, force: true });
process.exit(result.status ?? 1);
