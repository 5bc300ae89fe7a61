const { execFileSync } = require("node:child_process");
const fs = require("node:fs");
const assert = require("node:assert");
execFileSync("node", ["scripts/migrate.js", ".eval-check/in.json", ".eval-check/out.json"], { stdio: "inherit" });
assert.deepStrictEqual(JSON.parse(fs.readFileSync(".eval-check/out.json", "utf8")), {
  version: 2,
  users: [
    { firstName: "Mary", lastName: "Ann Evans", email: "mary@example.org", roles: [] },
    { firstName: "Plato", lastName: "", email: "plato@ex.gr", roles: ["admin"] },
  ],
});
