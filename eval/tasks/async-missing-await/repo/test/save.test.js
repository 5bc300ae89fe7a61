const test = require("node:test");
const assert = require("node:assert");
const { saveAll } = require("../src/save");

test("resolves once every draft is stored", async () => {
  const ids = await saveAll([{ title: "a" }, { title: "b" }]);
  assert.strictEqual(ids.length, 2);
});
