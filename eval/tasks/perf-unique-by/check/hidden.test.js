const test = require("node:test");
const assert = require("node:assert");
const { uniqueBy } = require(require("node:path").resolve("src/unique.js"));

test("200,000 rows in well under a second", () => {
  const rows = Array.from({ length: 200_000 }, (_, i) => ({ id: i % 50_000, i }));
  const started = performance.now();
  const out = uniqueBy(rows, (r) => r.id);
  const ms = performance.now() - started;
  assert.strictEqual(out.length, 50_000);
  assert.strictEqual(out[123].i, 123);
  assert.ok(ms < 1500, `took ${Math.round(ms)} ms`);
});
test("keys compare by identity as before", () => {
  assert.deepStrictEqual(uniqueBy([1, "1", 1], (x) => x), [1, "1"]);
});
