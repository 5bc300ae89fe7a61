/** bytesToKiB: see test/bytes-to-kib.test.js. */
const bytesToKiB = (b) => b / 1000;

module.exports = { bytesToKiB };
