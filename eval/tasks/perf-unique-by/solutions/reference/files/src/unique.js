/** The items with a distinct key(item), first occurrence kept, in their order. */
function uniqueBy(items, key) {
  const seen = new Set();
  const out = [];
  for (const item of items) {
    const k = key(item);
    if (seen.has(k)) continue;
    seen.add(k);
    out.push(item);
  }
  return out;
}

module.exports = { uniqueBy };
