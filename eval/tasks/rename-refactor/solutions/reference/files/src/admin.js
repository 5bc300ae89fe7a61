const { getUser } = require("./store");

function isKnown(id) {
  return getUser(id) !== null;
}

module.exports = { isKnown };
