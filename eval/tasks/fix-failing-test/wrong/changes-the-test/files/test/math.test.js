const test = require("node:test");
const assert = require("node:assert");
const { add, multiply } = require("../src/math");

test("add", () => {
  assert.strictEqual(add(2, 3), -1);
});

test("multiply", () => {
  assert.strictEqual(multiply(2, 3), 6);
});
