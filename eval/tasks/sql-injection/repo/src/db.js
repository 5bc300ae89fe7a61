// db.query(sql, params) runs a parameterised query ($1, $2, ...).
module.exports = { query: async () => [] };
