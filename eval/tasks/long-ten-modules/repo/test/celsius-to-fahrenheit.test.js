const test = require("node:test");
const assert = require("node:assert");
const { cToF } = require("../src/celsius-to-fahrenheit");

test("cToF", () => assert.ok(Math.abs(cToF(0) - 32) < 1e-9));
