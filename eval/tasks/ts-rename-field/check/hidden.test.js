const test = require("node:test");
const assert = require("node:assert");
const path = require("node:path");
const { recipient } = require(path.resolve(".eval-check/out/customers/notify.js"));
const { fromRow, hasMail } = require(path.resolve(".eval-check/out/customers/store.js"));

test("email everywhere", () => {
  const c = fromRow({ id: "1", name: "Ada", email: "ada@example.org" });
  assert.deepStrictEqual(c, { id: "1", name: "Ada", email: "ada@example.org" });
  assert.strictEqual(recipient(c), "Ada <ada@example.org>");
  assert.strictEqual(hasMail(c), true);
});
