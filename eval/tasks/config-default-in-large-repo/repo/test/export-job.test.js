const test = require("node:test");
const assert = require("node:assert");
const { runExport } = require("../packages/reports/src/export-job");

test("an explicit batch size", () => {
  const batches = [];
  assert.strictEqual(runExport([1, 2, 3, 4, 5], (b) => batches.push(b), { batchSize: 2 }), 3);
  assert.deepStrictEqual(batches, [[1, 2], [3, 4], [5]]);
});
