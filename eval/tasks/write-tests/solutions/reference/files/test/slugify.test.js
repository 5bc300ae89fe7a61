const test = require("node:test");
const assert = require("node:assert");
const { slugify } = require("../src/slugify");

test("lower-cases", () => assert.strictEqual(slugify("Hello"), "hello"));
test("spaces and punctuation become single dashes", () => {
  assert.strictEqual(slugify("a b"), "a-b");
  assert.strictEqual(slugify("a, b!! c"), "a-b-c");
});
test("trims dashes at both ends", () => assert.strictEqual(slugify("  -Hi there!- "), "hi-there"));
