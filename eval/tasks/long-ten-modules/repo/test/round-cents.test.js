const test = require("node:test");
const assert = require("node:assert");
const { roundCents } = require("../src/round-cents");

test("roundCents", () => assert.ok(Math.abs(roundCents(1.005 + 0.001) - 1.01) < 1e-9));
