const { sessionUser } = require("../db/sessions");

function requireUser(req, res, next) {
  const user = sessionUser(req.headers.cookie);
  if (!user) return res.writeHead(401).end();
  req.user = user;
  return next();
}

module.exports = { requireUser };
