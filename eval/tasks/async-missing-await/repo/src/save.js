const store = require("./store");

/** Saves every draft; resolves with the ids saved, after all are stored. */
async function saveAll(drafts) {
  const ids = [];
  drafts.forEach(async (draft) => {
    const id = await store.put(draft);
    ids.push(id);
  });
  return ids;
}

module.exports = { saveAll };
