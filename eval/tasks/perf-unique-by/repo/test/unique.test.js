const test = require("node:test");
const assert = require("node:assert");
const { uniqueBy } = require("../src/unique");

test("first occurrence wins", () => {
  const rows = [{ id: 1, v: "a" }, { id: 2, v: "b" }, { id: 1, v: "c" }];
  assert.deepStrictEqual(uniqueBy(rows, (r) => r.id), [{ id: 1, v: "a" }, { id: 2, v: "b" }]);
});
