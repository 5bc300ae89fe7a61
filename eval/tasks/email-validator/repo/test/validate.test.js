const test = require("node:test");
const assert = require("node:assert");
const { isEmail } = require("../src/validate");

test("plain addresses", () => {
  assert.ok(isEmail("ada@example.org"));
  assert.ok(!isEmail("ada@"));
});

test("plus addressing and subdomains (customers complain)", () => {
  assert.ok(isEmail("ada+news@example.org"));
  assert.ok(isEmail("grace@mail.example.co.uk"));
});
