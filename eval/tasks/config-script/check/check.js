const fs = require("node:fs");
const fail = (m) => { console.error(m); process.exit(1); };
const pkg = JSON.parse(fs.readFileSync("package.json", "utf8"));
const s = pkg.scripts && pkg.scripts.check;
if (!s) fail("no check script");
if (!/&&/.test(s)) fail("the steps must stop at the first failure (&&): " + s);
if (s.indexOf("lint.js") < s.search(/test/)) fail("tests must run first: " + s);
if (pkg.scripts.test !== "node --test test/") fail("the test script was changed");
