const { runExport } = require("./export-job");

function adhoc(rows, send) {
  return runExport(rows, send, { batchSize: 10 });
}

module.exports = { adhoc };
