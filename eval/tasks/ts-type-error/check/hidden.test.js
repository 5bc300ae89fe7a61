const test = require("node:test");
const assert = require("node:assert");
const path = require("node:path");
const { orderTotal } = require(path.resolve(".eval-check/out/orders/total.js"));
const order = (country) => ({ id: "o1", country, lines: [{ sku: "a", unitCents: 1000, quantity: 2 }] });

test("a country with a rate", () => assert.strictEqual(orderTotal(order("DE")), 2380));
test("a country the shop does not sell to is refused", () => assert.throws(() => orderTotal(order("US")), /US/));
