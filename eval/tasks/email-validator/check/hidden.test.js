const test = require("node:test");
const assert = require("node:assert");
const { isEmail } = require(require("node:path").resolve("src/validate.js"));

test("accepted", () => {
  for (const a of ["Ada@Example.org", "a_b-c@x.io", "o'neil@example.ie", "x+y+z@sub.domain.example"]) assert.ok(isEmail(a), a);
});
test("refused", () => {
  for (const a of ["", "ada", "ada@example", "ada @example.org", "ada@exa mple.org", "@example.org", "ada@.org", "a@b@c.org", "ada@example.org\nbcc@evil.org"]) assert.ok(!isEmail(a), JSON.stringify(a));
});
