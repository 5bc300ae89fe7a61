/** The SQL and parameters that find the orders of a customer, optionally of one status. */
function ordersQuery(customerId, status) {
  let sql = "select * from orders where customer_id = " + customerId;
  if (status) sql += " and status = '" + status.replace(/'/g, "''") + "'";
  return { sql, params: [] };
}

module.exports = { ordersQuery };
