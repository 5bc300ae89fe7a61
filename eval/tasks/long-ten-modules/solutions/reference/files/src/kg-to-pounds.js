/** kgToPounds: see test/kg-to-pounds.test.js. */
const kgToPounds = (kg) => kg * 2.20462;

module.exports = { kgToPounds };
