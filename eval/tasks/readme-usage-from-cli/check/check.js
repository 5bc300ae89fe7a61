const fs = require("node:fs");
const fail = (m) => { console.error(m); process.exit(1); };
const md = fs.readFileSync("README.md", "utf8");
const usage = md.slice(md.indexOf("## Usage"), md.indexOf("## License"));
if (md.indexOf("## Usage") < 0 || md.indexOf("## License") < 0) fail("the Usage and License sections must stay");
for (const flag of ["--output", "--format", "--limit", "--quiet", "--help"]) if (!usage.includes(flag)) fail(`Usage does not mention ${flag}`);
for (const fact of ["json", "csv", "stdout"]) if (!usage.includes(fact)) fail(`Usage does not say ${fact}`);
if (!md.includes("MIT")) fail("the license was lost");
