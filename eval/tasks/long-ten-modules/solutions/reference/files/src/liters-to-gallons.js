/** litersToGallons: see test/liters-to-gallons.test.js. */
const litersToGallons = (l) => l / 3.78541;

module.exports = { litersToGallons };
