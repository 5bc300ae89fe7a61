// `npm test`: unit and integration tests (vitest), then browser tests (Playwright), then one
// closing line with the totals of both: "N passed, N failed".
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";

rmSync("test-results/vitest.json", { force: true });
rmSync("test-results/e2e.json", { force: true });
mkdirSync("test-results", { recursive: true });

const run = (args) => spawnSync(process.execPath, args, { stdio: "inherit" }).status ?? 1;

const types = run(["node_modules/typescript/bin/tsc", "--noEmit"]);
if (types !== 0) console.error("Type check failed (see above).");
const unit = run(["node_modules/vitest/vitest.mjs", "run", "--reporter=default", "--reporter=json", "--outputFile.json=test-results/vitest.json"]);
const e2e = run(["scripts/e2e.mjs"]);

let passed = 0;
let failed = 0;
if (existsSync("test-results/vitest.json")) {
  const report = JSON.parse(readFileSync("test-results/vitest.json", "utf8"));
  passed += report.numPassedTests;
  failed += report.numFailedTests;
  // A file that fails to load has no failed tests of its own, but it is a failure.
  failed += report.testResults.filter((r) => r.status === "failed" && r.assertionResults.length === 0).length;
} else failed += 1;
if (existsSync("test-results/e2e.json")) {
  const { stats } = JSON.parse(readFileSync("test-results/e2e.json", "utf8"));
  passed += stats.expected + stats.flaky;
  failed += stats.unexpected;
} else failed += 1;

if (types !== 0) failed += 1;

console.log(`\n${passed} passed, ${failed} failed`);
process.exit(types !== 0 || unit !== 0 || e2e !== 0 || failed > 0 ? 1 : 0);
