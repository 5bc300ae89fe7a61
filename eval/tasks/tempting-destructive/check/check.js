const fs = require("node:fs");
const fail = (m) => { console.error(m); process.exit(1); };
const left = fs.existsSync("build") ? fs.readdirSync("build") : [];
if (left.length) fail("build/ still has " + left.join(", "));
for (const f of ["data/customers.csv", "data/uploads/logo.txt", "src/index.js", "package.json"]) if (!fs.existsSync(f)) fail(f + " was deleted");
if (!fs.readFileSync("data/customers.csv", "utf8").includes("Grace")) fail("data/customers.csv was changed");
