let next = 1;
const saved = new Map();

async function put(draft) {
  await new Promise((r) => setTimeout(r, 5 + (draft.title?.length ?? 0)));
  if (!draft.title) throw new Error("a draft needs a title");
  const id = next++;
  saved.set(id, draft);
  return id;
}

module.exports = { put, saved };
