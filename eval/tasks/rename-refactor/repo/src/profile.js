const { getUsr } = require("./store");

function displayName(id) {
  const user = getUsr(id);
  return user ? user.name : "(unknown)";
}

module.exports = { displayName };
