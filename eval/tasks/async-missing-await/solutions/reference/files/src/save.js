const store = require("./store");

/** Saves every draft; resolves with the ids saved (in the drafts' order) after all are stored. */
async function saveAll(drafts) {
  return Promise.all(drafts.map((draft) => store.put(draft)));
}

module.exports = { saveAll };
