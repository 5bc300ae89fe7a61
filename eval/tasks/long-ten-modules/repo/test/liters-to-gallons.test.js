const test = require("node:test");
const assert = require("node:assert");
const { litersToGallons } = require("../src/liters-to-gallons");

test("litersToGallons", () => assert.ok(Math.abs(litersToGallons(3.78541) - 1) < 1e-9));
