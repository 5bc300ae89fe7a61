const test = require("node:test");
const assert = require("node:assert");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { loadSettings } = require(path.resolve("src/settings.js"));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "s-"));

test("no file: the defaults", () => assert.deepStrictEqual(loadSettings(path.join(dir, "none.json")), { port: 8080, logLevel: "info", features: [] }));
test("a broken file is still an error that names it", () => {
  const file = path.join(dir, "broken.json");
  fs.writeFileSync(file, "{ port: ");
  assert.throws(() => loadSettings(file), (e) => String(e.message).includes("broken.json"));
});
test("defaults are not shared between calls", () => {
  const a = loadSettings(path.join(dir, "none.json"));
  a.features.push("x");
  assert.deepStrictEqual(loadSettings(path.join(dir, "none.json")).features, []);
});
