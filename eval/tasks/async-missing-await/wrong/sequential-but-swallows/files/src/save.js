const store = require("./store");

async function saveAll(drafts) {
  const ids = [];
  for (const draft of drafts) {
    try {
      ids.push(await store.put(draft));
    } catch {}
  }
  return ids;
}

module.exports = { saveAll };
