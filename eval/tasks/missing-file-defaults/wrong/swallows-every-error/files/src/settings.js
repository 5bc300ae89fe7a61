const fs = require("node:fs");

const DEFAULTS = { port: 8080, logLevel: "info", features: [] };

/** The settings: the defaults, overridden by what the JSON file at `file` sets. */
function loadSettings(file) {
  try {
    return { ...DEFAULTS, ...JSON.parse(fs.readFileSync(file, "utf8")) };
  } catch {
    return DEFAULTS;
  }
}

module.exports = { loadSettings, DEFAULTS };
