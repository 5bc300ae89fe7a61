// Runs the browser tests against a fresh Tandem: a free port, a temporary data directory (with
// its own embedded Postgres), removed afterwards. Extra arguments go to `playwright test`.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

const port = await new Promise((resolve) => {
  const server = net.createServer().listen(0, "127.0.0.1", () => {
    const { port } = server.address();
    server.close(() => resolve(port));
  });
});
const dataDir = mkdtempSync(path.join(os.tmpdir(), "tandem-e2e-"));
const importRoot = mkdtempSync(path.join(os.tmpdir(), "tandem-e2e-import-"));

const result = spawnSync(
  process.execPath,
  ["node_modules/@playwright/test/cli.js", "test", ...process.argv.slice(2)],
  {
    stdio: "inherit",
    env: { ...process.env, E2E_PORT: String(port), E2E_DATA_DIR: dataDir, E2E_IMPORT_ROOT: importRoot, NEXT_TELEMETRY_DISABLED: "1" },
  },
);
rmSync(dataDir, { recursive: true, force: true });
rmSync(importRoot, { recursive: true, force: true });
process.exit(result.status ?? 1);
