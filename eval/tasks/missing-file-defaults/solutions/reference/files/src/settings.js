const fs = require("node:fs");

const DEFAULTS = { port: 8080, logLevel: "info", features: [] };

/** The settings: the defaults, overridden by what the JSON file at `file` sets (no file: the defaults). */
function loadSettings(file) {
  let text;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    if (error.code === "ENOENT") return structuredClone(DEFAULTS);
    throw error;
  }
  let own;
  try {
    own = JSON.parse(text);
  } catch (error) {
    throw new Error(`${file} is not valid JSON: ${error.message}`);
  }
  return { ...structuredClone(DEFAULTS), ...own };
}

module.exports = { loadSettings, DEFAULTS };
