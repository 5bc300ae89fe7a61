const repo = require("../db/orders-repo");

function list(req, res) {
  const rows = repo.forUser(req.user.id);
  res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(rows));
}

module.exports = { list };
