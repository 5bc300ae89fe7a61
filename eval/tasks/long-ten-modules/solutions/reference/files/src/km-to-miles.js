/** kmToMiles: see test/km-to-miles.test.js. */
const kmToMiles = (km) => km / 1.609344;

module.exports = { kmToMiles };
