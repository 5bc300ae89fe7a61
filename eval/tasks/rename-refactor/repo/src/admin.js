const { getUsr } = require("./store");

function isKnown(id) {
  return getUsr(id) !== null;
}

module.exports = { isKnown };
