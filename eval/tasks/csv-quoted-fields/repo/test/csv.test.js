const test = require("node:test");
const assert = require("node:assert");
const fs = require("node:fs");
const { parseCsv } = require("../src/csv");

test("the contacts export", () => {
  const rows = parseCsv(fs.readFileSync(`${__dirname}/../data/contacts.csv`, "utf8"));
  assert.deepStrictEqual(rows, [
    { name: "Lovelace, Ada", city: "London", note: 'said "hi"' },
    { name: "Grace Hopper", city: "Arlington", note: "" },
  ]);
});
