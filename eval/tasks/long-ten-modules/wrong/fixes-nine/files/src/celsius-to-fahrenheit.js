/** cToF: see test/celsius-to-fahrenheit.test.js. */
const cToF = (c) => c * 9 / 5 + 32;

module.exports = { cToF };
