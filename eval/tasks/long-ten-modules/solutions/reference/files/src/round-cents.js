/** roundCents: see test/round-cents.test.js. */
const roundCents = (x) => Math.round(x * 100) / 100;

module.exports = { roundCents };
