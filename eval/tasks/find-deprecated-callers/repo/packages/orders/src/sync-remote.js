const { legacyFetch } = require("../../net/src/legacy");

async function syncRemote(url) {
  const res = await legacyFetch(url, { retries: 2 });
  return res.items;
}

module.exports = { syncRemote };
