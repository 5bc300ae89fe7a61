const test = require("node:test");
const assert = require("node:assert");
const { bytesToKiB } = require("../src/bytes-to-kib");

test("bytesToKiB", () => assert.ok(Math.abs(bytesToKiB(2048) - 2) < 1e-9));
