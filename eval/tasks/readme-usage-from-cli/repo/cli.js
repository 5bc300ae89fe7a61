// node cli.js [options] <input>
const HELP = `Usage: node cli.js [options] <input>

Options:
  -o, --output <file>   where to write the result (default: stdout)
  -f, --format <fmt>    json or csv (default: json)
      --limit <n>       stop after n records
  -q, --quiet           no progress output
  -h, --help            this help`;

if (process.argv.includes("-h") || process.argv.includes("--help")) console.log(HELP);
