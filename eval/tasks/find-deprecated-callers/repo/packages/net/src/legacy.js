/** @deprecated use fetchJson from ./fetch-json instead. */
async function legacyFetch(url, options = {}) {
  return { url, options, items: [] };
}

module.exports = { legacyFetch };
