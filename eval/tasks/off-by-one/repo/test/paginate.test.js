const test = require("node:test");
const assert = require("node:assert");
const { pages, page } = require("../src/paginate");

test("pages", () => {
  assert.strictEqual(pages(0, 10), 0);
  assert.strictEqual(pages(10, 10), 1);
  assert.strictEqual(pages(11, 10), 2);
});

test("page", () => {
  assert.deepStrictEqual(page([1, 2, 3, 4, 5], 1, 2), [1, 2]);
  assert.deepStrictEqual(page([1, 2, 3, 4, 5], 3, 2), [5]);
});
