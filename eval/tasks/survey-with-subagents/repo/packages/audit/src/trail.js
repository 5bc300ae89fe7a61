const { appendFile } = require("node:fs/promises");

async function record(entry) {
  await appendFile("audit.log", `${JSON.stringify(entry)}\n`);
}

module.exports = { record };
