/** fToC: see test/fahrenheit-to-celsius.test.js. */
const fToC = (f) => (f - 32) * 5 / 9;

module.exports = { fToC };
