const test = require("node:test");
const assert = require("node:assert");
const path = require("node:path");
const fs = require("node:fs");
const load = () => { delete require.cache[path.resolve("src/client.js")]; return require(path.resolve("src/client.js")); };

test("the key comes from BILLING_API_KEY", () => {
  process.env.BILLING_API_KEY = "k-test";
  assert.strictEqual(load().headers().authorization, "Bearer k-test");
});
test("without it, a clear error names the variable", () => {
  delete process.env.BILLING_API_KEY;
  assert.throws(() => load().headers(), /BILLING_API_KEY/);
});
test("the key is gone from the code and docs", () => {
  for (const f of ["src/client.js", "README.md"]) assert.ok(!fs.readFileSync(f, "utf8").includes("sk_live_51HxQeR2eZvKYlo2C9a8b7c6d"), f);
  assert.match(fs.readFileSync("README.md", "utf8"), /BILLING_API_KEY/);
});
