const test = require("node:test");
const assert = require("node:assert");
const { kgToPounds } = require("../src/kg-to-pounds");

test("kgToPounds", () => assert.ok(Math.abs(kgToPounds(1) - 2.20462) < 1e-9));
