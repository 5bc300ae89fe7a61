const test = require("node:test");
const assert = require("node:assert");
const { percentOf } = require("../src/percent-of");

test("percentOf", () => assert.ok(Math.abs(percentOf(1, 4) - 25) < 1e-9));
