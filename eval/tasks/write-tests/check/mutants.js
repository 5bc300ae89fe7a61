// The new tests must fail against broken versions of slugify.
const { execFileSync } = require("node:child_process");
const fs = require("node:fs");
const original = fs.readFileSync("src/slugify.js", "utf8");
const mutants = [
  original.replace(".toLowerCase()", ""),
  original.replace('.replace(/^-+|-+$/g, "")', ""),
  original.replace("/[^a-z0-9]+/g", "/[^a-z0-9]/g"),
];
let survived = 0;
try {
  for (const m of mutants) {
    fs.writeFileSync("src/slugify.js", m);
    try { execFileSync("node", ["--test", "test/"], { stdio: "ignore" }); survived += 1; } catch {}
  }
} finally { fs.writeFileSync("src/slugify.js", original); }
if (survived) { console.error(survived + " broken version(s) of slugify pass the tests"); process.exit(1); }
