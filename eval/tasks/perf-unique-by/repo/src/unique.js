/** The items with a distinct key(item), first occurrence kept, in their order. */
function uniqueBy(items, key) {
  const out = [];
  for (const item of items) {
    if (!out.some((kept) => key(kept) === key(item))) out.push(item);
  }
  return out;
}

module.exports = { uniqueBy };
