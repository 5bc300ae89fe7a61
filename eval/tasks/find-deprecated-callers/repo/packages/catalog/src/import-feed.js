const net = require("../../net/src/legacy");

async function importFeed(url) {
  const body = await net.legacyFetch(url);
  return body.split("\n");
}

module.exports = { importFeed };
