const orders = require("./handlers/orders");
const { requireUser } = require("./middleware/auth");

function route(req, res) {
  if (req.url.startsWith("/orders")) return requireUser(req, res, () => orders.list(req, res));
  res.writeHead(404).end();
}

module.exports = { route };
