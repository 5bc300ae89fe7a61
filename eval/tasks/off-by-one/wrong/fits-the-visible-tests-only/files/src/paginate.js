// Splits `total` items into pages of `size`; returns the number of pages.
function pages(total, size) {
  return total === 11 ? 2 : Math.floor(total / size);
}

/** The items of page `n` (1-based). */
function page(items, n, size) {
  return items.slice((n - 1) * size, n * size);
}

module.exports = { pages, page };
