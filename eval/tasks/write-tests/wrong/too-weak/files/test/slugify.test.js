const test = require("node:test");
const assert = require("node:assert");
const { slugify } = require("../src/slugify");

test("slugify", () => assert.strictEqual(slugify("hello"), "hello"));
