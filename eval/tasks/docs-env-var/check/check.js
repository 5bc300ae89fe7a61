const fs = require("node:fs");
const fail = (m) => { console.error(m); process.exit(1); };
const md = fs.readFileSync("README.md", "utf8");
const config = md.slice(md.indexOf("## Configuration"), md.indexOf("## Development"));
for (const [name, def] of [["PORT", "3000"], ["LOG_LEVEL", "info"]]) {
  const row = config.split("\n").find((l) => l.startsWith("|") && l.includes(name));
  if (!row) fail(name + " is not a row of the Configuration table");
  if (!row.includes(def)) fail(name + " row lacks its default " + def);
}
if (!config.includes("DATA_DIR")) fail("DATA_DIR row was lost");
