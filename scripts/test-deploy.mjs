// `npm run test:deploy`: runs what deploy/ ships, with podman, on this machine. Builds the base
// images the Dockerfile and compose file name (deploy/local-base-images.sh: no image registry is
// needed), builds the image through deploy/compose.yaml's own build section, then runs
// deploy/*.deploy.ts (the compose cluster through nginx, the Kubernetes Deployment to its health
// endpoint). Not part of `npm test`: it needs root, podman and 20-30 minutes of two cores; `npm
// test` says so at its end. Closes with "N passed, N failed, N skipped" like `npm test`.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
process.chdir(root);
process.env.CONTAINERS_CONF ??= path.join(root, "deploy/podman/containers.conf");

const has = (command) => spawnSync("sh", ["-c", `command -v ${command}`], { stdio: "ignore" }).status === 0;
const missing = ["podman", "runc", "podman-compose", "debootstrap"].filter((command) => !has(command));
if (process.getuid?.() !== 0 || missing.length) {
  console.error(
    `test:deploy runs containers with rootful podman: run it as root with podman, runc, podman-compose and debootstrap installed${missing.length ? ` (missing: ${missing.join(", ")})` : ""}:\n` +
      "  apt-get install -y podman runc podman-compose debootstrap",
  );
  process.exit(1);
}

function step(what, command, args) {
  console.log(`\n== ${what}: ${command} ${args.join(" ")}`);
  const started = Date.now();
  const status = spawnSync(command, args, { stdio: "inherit" }).status;
  console.log(
    `== ${what}: ${status === 0 ? "done" : `failed (exit ${status})`} in ${Math.round((Date.now() - started) / 1000)} s`,
  );
  if (status !== 0) {
    console.log("\n0 passed, 1 failed");
    process.exit(1);
  }
}

step("base images", "bash", ["deploy/local-base-images.sh"]);
// compose.yaml's build section (context .., deploy/Dockerfile, image tandem:local), once for the
// three services that share it. Niced: the machine's other work goes on beside it.
step("image", "nice", ["-n", "10", "podman-compose", "-f", "deploy/compose.yaml", "build", "tandem-1"]);

mkdirSync("test-results", { recursive: true });
const report = "test-results/deploy.json";
rmSync(report, { force: true });
const vitest = spawnSync(
  process.execPath,
  [
    "node_modules/vitest/vitest.mjs",
    "run",
    "--config",
    "deploy/vitest.deploy.config.ts",
    "--reporter=default",
    "--reporter=json",
    `--outputFile.json=${report}`,
  ],
  { stdio: "inherit" },
).status;
const results = existsSync(report) ? JSON.parse(readFileSync(report, "utf8")) : null;
const passed = results?.numPassedTests ?? 0;
const failed = results ? results.numFailedTests : 1;
const skipped = (results?.numPendingTests ?? 0) + (results?.numTodoTests ?? 0);
console.log(`\n${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(vitest === 0 && failed === 0 ? 0 : 1);
