const test = require("node:test");
const assert = require("node:assert");
const { parseCsv } = require(require("node:path").resolve("src/csv.js"));

test("quotes, commas, escaped quotes, CRLF and newlines in quotes", () => {
  assert.deepStrictEqual(parseCsv('a,b\r\n"x, y","line1\nline2"\r\n"",3\r\n'), [
    { a: "x, y", b: "line1\nline2" },
    { a: "", b: "3" },
  ]);
});
