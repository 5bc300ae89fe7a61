/** bytesToKiB: see test/bytes-to-kib.test.js. */
const bytesToKiB = (b) => b / 1024;

module.exports = { bytesToKiB };
