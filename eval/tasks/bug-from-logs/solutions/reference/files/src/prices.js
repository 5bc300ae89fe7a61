// Parses price lines from the supplier feed: "<sku>;<amount>;<currency>".
function parseLine(line) {
  const [sku, amount, currency] = line.split(";");
  return { sku, cents: Math.round(Number(amount) * 100), currency: (currency ?? "EUR").trim().toUpperCase() };
}

function parseFeed(text) {
  return text.split("\n").filter((l) => l.trim()).map(parseLine);
}

module.exports = { parseLine, parseFeed };
