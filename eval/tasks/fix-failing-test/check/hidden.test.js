const test = require("node:test");
const assert = require("node:assert");
const { add, multiply } = require(require("node:path").resolve("src/math.js"));

test("add", () => {
  assert.strictEqual(add(-1, 1), 0);
  assert.strictEqual(add(0.5, 0.25), 0.75);
  assert.strictEqual(add(10, 0), 10);
});
test("multiply still works", () => assert.strictEqual(multiply(-2, 4), -8));
