// The tests must be the original ones: the fix belongs in the code.
const fs = require("node:fs");
const test = fs.readFileSync("test/math.test.js", "utf8");
if (!test.includes("assert.strictEqual(add(2, 3), 5)")) { console.error("the test was changed"); process.exit(1); }
