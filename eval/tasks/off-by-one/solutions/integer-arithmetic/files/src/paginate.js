// Splits `total` items into pages of `size`; returns the number of pages.
function pages(total, size) {
  return Math.floor((total + size - 1) / size);
}

/** The items of page `n` (1-based). */
function page(items, n, size) {
  const start = (n - 1) * size;
  return items.slice(start, start + size);
}

module.exports = { pages, page };
