const test = require("node:test");
const assert = require("node:assert");
const path = require("node:path");
const { netTotal } = require(path.resolve(".eval-check/out/orders/total.js"));
const { invoiceLines } = require(path.resolve(".eval-check/out/orders/invoice.js"));
const lines = [{ sku: "a", unitCents: 1000, quantity: 2 }, { sku: "b", unitCents: 500, quantity: 1 }];

test("without a discount nothing changes", () => assert.strictEqual(netTotal({ id: "1", country: "DE", lines }), 2500));
test("a discount takes its percentage off the net total", () =>
  assert.strictEqual(netTotal({ id: "1", country: "DE", lines, discountPercent: 10 }), 2250));
test("the invoice shows the discount", () => {
  const text = invoiceLines({ id: "1", country: "DE", lines, discountPercent: 10 }).join("\n");
  assert.match(text, /10\s*%/);
  assert.match(text, /Total: 22\.50/);
});
