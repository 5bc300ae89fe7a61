const users = new Map([[1, { id: 1, name: "Ada" }], [2, { id: 2, name: "Grace" }]]);

function getUser(id) {
  return users.get(id) ?? null;
}

module.exports = { getUser };
