const { legacyFetch: get } = require("../../net/src/legacy");

async function pingWebhook(url) {
  return get(url, { method: "POST" });
}

module.exports = { pingWebhook };
