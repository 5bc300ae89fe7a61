/** milesToKm: see test/miles-to-km.test.js. */
const milesToKm = (mi) => mi * 1.609344;

module.exports = { milesToKm };
