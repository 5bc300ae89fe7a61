// Runs `npm run check` three times with recorders in place of the tests and the linter: both
// must run, tests first, and a failing step must stop it (and fail it).
const { spawnSync } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");
const log = path.resolve(".eval-check/steps.log");
const fail = (m) => { console.error(m); process.exit(1); };
const pkg = JSON.parse(fs.readFileSync("package.json", "utf8"));
if (!pkg.scripts || !pkg.scripts.check) fail("package.json has no check script");
fs.writeFileSync("scripts/lint.js", `require("node:fs").appendFileSync(${JSON.stringify(log)}, "lint\\n"); if (process.env.LINT_FAIL) process.exit(1);\n`);
fs.writeFileSync("test/zz-recorder.test.js", `require("node:fs").appendFileSync(${JSON.stringify(log)}, "test\\n"); require("node:test")("recorder", () => { if (process.env.TEST_FAIL) throw new Error("failing on purpose"); });\n`);
const run = (env) => {
  fs.writeFileSync(log, "");
  const r = spawnSync("npm", ["run", "--silent", "check"], { env: { ...process.env, ...env }, encoding: "utf8" });
  return { code: r.status, steps: fs.readFileSync(log, "utf8").trim().split("\n").filter(Boolean).join(",") };
};
let r = run({});
if (r.code !== 0 || r.steps !== "test,lint") fail(`all passing: exit ${r.code}, steps ${r.steps || "none"} (want tests, then lint)`);
r = run({ TEST_FAIL: "1" });
if (r.code === 0 || r.steps !== "test") fail(`failing tests: exit ${r.code}, steps ${r.steps} (want a failure before lint)`);
r = run({ LINT_FAIL: "1" });
if (r.code === 0) fail("failing lint: npm run check still exits 0");
