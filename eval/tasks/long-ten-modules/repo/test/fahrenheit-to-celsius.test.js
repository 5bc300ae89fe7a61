const test = require("node:test");
const assert = require("node:assert");
const { fToC } = require("../src/fahrenheit-to-celsius");

test("fToC", () => assert.ok(Math.abs(fToC(32) - 0) < 1e-9));
