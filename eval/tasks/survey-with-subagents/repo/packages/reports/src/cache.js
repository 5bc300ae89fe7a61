const fsp = require("fs/promises");

async function keep(name, text) {
  await fsp.writeFile(`.cache/${name}`, text);
}

module.exports = { keep };
