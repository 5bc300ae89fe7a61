// `npm test`: unit and integration tests (vitest), then browser tests (Playwright), then one
// closing line with the totals of both: "N passed, N failed, N skipped" (scripts/test-summary.mjs;
// without bubblewrap it first lists the sandbox tests it skipped, and with CI=true fails them).
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { sandboxReport, summarize } from "./test-summary.mjs";

rmSync("test-results/vitest.json", { force: true });
rmSync("test-results/e2e.json", { force: true });
mkdirSync("test-results", { recursive: true });

const run = (args) => spawnSync(process.execPath, args, { stdio: "inherit" }).status ?? 1;

// The sandbox's native module, when its sources changed since `npm install` built it.
run(["scripts/build-native.mjs"]);
// Formatting and lint of the whole tree (biome.jsonc); `npm run format` fixes what it can.
const style = run(["node_modules/@biomejs/biome/bin/biome", "ci", "--colors=off", "--error-on-warnings", "."]);
if (style !== 0) console.error("Formatting or lint failed (see above): `npm run format` fixes formatting.");
// The type check and the browser tests' Next build run beside the unit tests (a minute or two of
// CPU each, while the tests mostly wait on processes and sockets); what they print comes after the
// tests'. scripts/e2e.mjs then finds the build fresh and starts at once.
function beside(args) {
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
  const output = [];
  child.stdout.on("data", (chunk) => output.push(chunk));
  child.stderr.on("data", (chunk) => output.push(chunk));
  const done = new Promise((resolve) => child.on("close", (code) => resolve(code ?? 1)));
  return { done, output };
}
const typeCheck = beside(["node_modules/typescript/bin/tsc", "--noEmit"]);
const nextBuild = beside(["scripts/start.mjs", "--build-only"]);
const unit = await new Promise((resolve) =>
  spawn(
    process.execPath,
    [
      "node_modules/vitest/vitest.mjs",
      "run",
      "--reporter=default",
      "--reporter=json",
      "--outputFile.json=test-results/vitest.json",
    ],
    { stdio: "inherit" },
  ).on("close", (code) => resolve(code ?? 1)),
);
const types = await typeCheck.done;
process.stdout.write(Buffer.concat(typeCheck.output));
if (types !== 0) console.error("Type check failed (see above).");
// A failed build is built again, and reported, by scripts/e2e.mjs.
await nextBuild.done;
process.stdout.write(Buffer.concat(nextBuild.output));
const e2e = run(["scripts/e2e.mjs"]);

const readReport = (file) => (existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : undefined);
const ci = process.env.CI === "true" || process.env.CI === "1";
const { passed, failed, skipped, sandboxSkipped } = summarize({
  vitest: readReport("test-results/vitest.json"),
  e2e: readReport("test-results/e2e.json"),
  typesFailed: types !== 0 || style !== 0,
  ci,
  source: (file) => (existsSync(file) ? readFileSync(file, "utf8") : ""),
});
const loud = sandboxReport(sandboxSkipped, { ci, relative: (file) => path.relative(".", file) });
if (loud.length) console.error(`\n${loud.join("\n")}`);

// Not run here (it needs root and podman, and half an hour): the shipped image and cluster.
console.log(
  "\nNot part of npm test: `npm run test:deploy` builds deploy/Dockerfile and runs deploy/compose.yaml and deploy/k8s with podman (docs/testing.md).",
);
console.log(`\n${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(types !== 0 || style !== 0 || unit !== 0 || e2e !== 0 || failed > 0 ? 1 : 0);
