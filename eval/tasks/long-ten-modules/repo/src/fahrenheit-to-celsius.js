/** fToC: see test/fahrenheit-to-celsius.test.js. */
const fToC = (f) => (f - 32) * 9 / 5;

module.exports = { fToC };
