const test = require("node:test");
const assert = require("node:assert");
const path = require("node:path");
const { nightly } = require(path.resolve("packages/reports/src/nightly.js"));
const { adhoc } = require(path.resolve("packages/reports/src/adhoc.js"));
const rows = Array.from({ length: 450 }, (_, i) => i);

test("the default is 200", () => {
  const sizes = [];
  nightly(rows, (b) => sizes.push(b.length));
  assert.deepStrictEqual(sizes, [200, 200, 50]);
});
test("a caller's own size is kept", () => {
  const sizes = [];
  adhoc(rows.slice(0, 25), (b) => sizes.push(b.length));
  assert.deepStrictEqual(sizes, [10, 10, 5]);
});
