const test = require("node:test");
const assert = require("node:assert");
const { kmToMiles } = require("../src/km-to-miles");

test("kmToMiles", () => assert.ok(Math.abs(kmToMiles(1.609344) - 1) < 1e-9));
