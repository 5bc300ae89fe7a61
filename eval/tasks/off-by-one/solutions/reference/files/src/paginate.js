// Splits `total` items into pages of `size`; returns the number of pages.
function pages(total, size) {
  return Math.ceil(total / size);
}

/** The items of page `n` (1-based). */
function page(items, n, size) {
  return items.slice((n - 1) * size, n * size);
}

module.exports = { pages, page };
