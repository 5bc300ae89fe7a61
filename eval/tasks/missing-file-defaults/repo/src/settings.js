const fs = require("node:fs");

const DEFAULTS = { port: 8080, logLevel: "info", features: [] };

/** The settings: the defaults, overridden by what the JSON file at `file` sets. */
function loadSettings(file) {
  const own = JSON.parse(fs.readFileSync(file, "utf8"));
  return { ...DEFAULTS, ...own };
}

module.exports = { loadSettings, DEFAULTS };
