const test = require("node:test");
const assert = require("node:assert");
const path = require("node:path");
const { saveAll } = require(path.resolve("src/save.js"));
const { saved } = require(path.resolve("src/store.js"));

test("ids in the drafts' order", async () => {
  const ids = await saveAll([{ title: "a long title" }, { title: "b" }, { title: "cc" }]);
  assert.deepStrictEqual(ids.map((id) => saved.get(id).title), ["a long title", "b", "cc"]);
});
test("a failing draft rejects saveAll", async () => {
  await assert.rejects(saveAll([{ title: "ok" }, {}]), /title/);
});
