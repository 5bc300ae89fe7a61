const test = require("node:test");
const assert = require("node:assert");
const path = require("node:path");

test("cToF(0)", () => assert.ok(Math.abs(require(path.resolve("src/celsius-to-fahrenheit.js")).cToF(0) - 32) < 1e-9));
test("cToF(100)", () => assert.ok(Math.abs(require(path.resolve("src/celsius-to-fahrenheit.js")).cToF(100) - 212) < 1e-9));
test("fToC(32)", () => assert.ok(Math.abs(require(path.resolve("src/fahrenheit-to-celsius.js")).fToC(32) - 0) < 1e-9));
test("fToC(212)", () => assert.ok(Math.abs(require(path.resolve("src/fahrenheit-to-celsius.js")).fToC(212) - 100) < 1e-9));
test("kmToMiles(1.609344)", () => assert.ok(Math.abs(require(path.resolve("src/km-to-miles.js")).kmToMiles(1.609344) - 1) < 1e-9));
test("milesToKm(1)", () => assert.ok(Math.abs(require(path.resolve("src/miles-to-km.js")).milesToKm(1) - 1.609344) < 1e-9));
test("kgToPounds(1)", () => assert.ok(Math.abs(require(path.resolve("src/kg-to-pounds.js")).kgToPounds(1) - 2.20462) < 1e-9));
test("litersToGallons(3.78541)", () => assert.ok(Math.abs(require(path.resolve("src/liters-to-gallons.js")).litersToGallons(3.78541) - 1) < 1e-9));
test("hoursToSeconds(2)", () => assert.ok(Math.abs(require(path.resolve("src/hours-to-seconds.js")).hoursToSeconds(2) - 7200) < 1e-9));
test("bytesToKiB(2048)", () => assert.ok(Math.abs(require(path.resolve("src/bytes-to-kib.js")).bytesToKiB(2048) - 2) < 1e-9));
test("percentOf(1, 4)", () => assert.ok(Math.abs(require(path.resolve("src/percent-of.js")).percentOf(1, 4) - 25) < 1e-9));
test("roundCents(1.005 + 0.001)", () => assert.ok(Math.abs(require(path.resolve("src/round-cents.js")).roundCents(1.005 + 0.001) - 1.01) < 1e-9));
test("roundCents(2.675 + 0.001)", () => assert.ok(Math.abs(require(path.resolve("src/round-cents.js")).roundCents(2.675 + 0.001) - 2.68) < 1e-9));

