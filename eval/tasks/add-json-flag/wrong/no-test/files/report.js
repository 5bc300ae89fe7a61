const fs = require("node:fs");

// node report.js <file.log> [--json]: counts the log's lines per level.
const args = process.argv.slice(2);
const file = args.find((a) => !a.startsWith("--"));
const counts = {};
for (const line of fs.readFileSync(file, "utf8").split("\n")) {
  const level = line.split(" ")[1];
  if (level) counts[level] = (counts[level] ?? 0) + 1;
}
if (args.includes("--json")) console.log(JSON.stringify(counts));
else for (const [level, n] of Object.entries(counts).sort()) console.log(`${level}: ${n}`);
