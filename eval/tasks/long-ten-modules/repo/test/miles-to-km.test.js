const test = require("node:test");
const assert = require("node:assert");
const { milesToKm } = require("../src/miles-to-km");

test("milesToKm", () => assert.ok(Math.abs(milesToKm(1) - 1.609344) < 1e-9));
