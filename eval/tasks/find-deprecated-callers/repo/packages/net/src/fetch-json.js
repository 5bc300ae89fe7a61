async function fetchJson(url) {
  return { url, items: [] };
}

module.exports = { fetchJson };
