/** The parameterised SQL and its parameters that find the orders of a customer, optionally of one status. */
function ordersQuery(customerId, status) {
  const params = [customerId];
  let sql = "select * from orders where customer_id = $1";
  if (status) {
    params.push(status);
    sql += ` and status = $${params.length}`;
  }
  return { sql, params };
}

module.exports = { ordersQuery };
