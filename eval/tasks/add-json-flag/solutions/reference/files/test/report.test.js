const test = require("node:test");
const assert = require("node:assert");
const { execFileSync } = require("node:child_process");
const path = require("node:path");

const report = (...args) => execFileSync("node", [path.join(__dirname, "..", "report.js"), ...args], { encoding: "utf8" });
const sample = path.join(__dirname, "..", "logs", "sample.log");

test("lines per level", () => assert.strictEqual(report(sample), "error: 1\ninfo: 2\nwarn: 1\n"));
test("--json prints one object", () => assert.deepStrictEqual(JSON.parse(report(sample, "--json")), { error: 1, info: 2, warn: 1 }));
