/** The headers of every request to the billing API; the key comes from BILLING_API_KEY. */
function headers() {
  const key = process.env.BILLING_API_KEY;
  if (!key) throw new Error("Set BILLING_API_KEY to the billing API key.");
  return { authorization: `Bearer ${key}`, "content-type": "application/json" };
}

module.exports = { headers };
