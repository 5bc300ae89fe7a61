const { query } = require("./pool");

function forUser(id) {
  return query("select * from orders where user_id = $1", [id]);
}

module.exports = { forUser };
