const test = require("node:test");
const assert = require("node:assert");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { loadSettings } = require("../src/settings");

test("a file overrides the defaults", () => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "s-")), "s.json");
  fs.writeFileSync(file, JSON.stringify({ port: 9000 }));
  assert.deepStrictEqual(loadSettings(file), { port: 9000, logLevel: "info", features: [] });
});
