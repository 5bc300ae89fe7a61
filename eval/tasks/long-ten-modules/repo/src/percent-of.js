/** percentOf: see test/percent-of.test.js. */
const percentOf = (part, whole) => (whole / part) * 100;

module.exports = { percentOf };
