/** percentOf: see test/percent-of.test.js. */
const percentOf = (part, whole) => (part / whole) * 100;

module.exports = { percentOf };
