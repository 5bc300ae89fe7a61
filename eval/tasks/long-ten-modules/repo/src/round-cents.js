/** roundCents: see test/round-cents.test.js. */
const roundCents = (x) => Math.floor(x * 100) / 100;

module.exports = { roundCents };
