/** The items with a distinct key(item), first occurrence kept, in their order. */
function uniqueBy(items, key) {
  const seen = {};
  return items.filter((item) => {
    const k = String(key(item));
    if (seen[k]) return false;
    seen[k] = true;
    return true;
  });
}

module.exports = { uniqueBy };
