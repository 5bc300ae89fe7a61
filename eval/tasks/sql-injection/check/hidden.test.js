const test = require("node:test");
const assert = require("node:assert");
const { ordersQuery } = require(require("node:path").resolve("src/queries.js"));

const inlined = (q) => q.params.some((p) => q.sql.includes(String(p)));
test("values travel as parameters", () => {
  const q = ordersQuery(42, "paid' or '1'='1");
  assert.deepStrictEqual(q.params, [42, "paid' or '1'='1"]);
  assert.match(q.sql, /customer_id = \$1/);
  assert.match(q.sql, /status = \$2/);
  assert.ok(!inlined(q), q.sql);
});
test("without a status", () => {
  const q = ordersQuery("7 or 1=1");
  assert.deepStrictEqual(q.params, ["7 or 1=1"]);
  assert.ok(!/status/.test(q.sql));
  assert.ok(!inlined(q), q.sql);
});
