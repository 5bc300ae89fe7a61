const fs = require("node:fs");

function readRates() {
  return JSON.parse(fs.readFileSync("rates.json", "utf8"));
}

module.exports = { readRates };
