function query(sql, params) {
  return [];
}

module.exports = { query };
