const test = require("node:test");
const assert = require("node:assert");
const { hoursToSeconds } = require("../src/hours-to-seconds");

test("hoursToSeconds", () => assert.ok(Math.abs(hoursToSeconds(2) - 7200) < 1e-9));
