/** Rows of a CSV text (comma-separated, first line the header) as objects. */
function parseCsv(text) {
  const [head, ...lines] = text.trim().split("\n");
  const names = head.split(",");
  return lines.map((line) => {
    const cells = line.split(",");
    return Object.fromEntries(names.map((n, i) => [n, cells[i]]));
  });
}

module.exports = { parseCsv };
