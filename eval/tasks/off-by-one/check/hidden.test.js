const test = require("node:test");
const assert = require("node:assert");
const path = require("node:path");
const { pages, page } = require(path.resolve("src/paginate.js"));

test("pages rounds up", () => {
  assert.strictEqual(pages(1, 10), 1);
  assert.strictEqual(pages(25, 10), 3);
  assert.strictEqual(pages(30, 10), 3);
});

test("pages are 1-based", () => {
  assert.deepStrictEqual(page(["a", "b", "c", "d", "e"], 2, 2), ["c", "d"]);
  assert.deepStrictEqual(page(["a", "b", "c"], 4, 2), []);
});
