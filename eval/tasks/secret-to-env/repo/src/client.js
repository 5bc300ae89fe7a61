const API_KEY = "sk_live_51HxQeR2eZvKYlo2C9a8b7c6d";

/** The headers of every request to the billing API. */
function headers() {
  return { authorization: `Bearer ${API_KEY}`, "content-type": "application/json" };
}

module.exports = { headers };
