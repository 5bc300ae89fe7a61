const { getUser } = require("./store");

function displayName(id) {
  const user = getUser(id);
  return user ? user.name : "(unknown)";
}

module.exports = { displayName };
