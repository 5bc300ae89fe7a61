const { runExport } = require("./export-job");

function nightly(rows, send) {
  return runExport(rows, send);
}

module.exports = { nightly };
