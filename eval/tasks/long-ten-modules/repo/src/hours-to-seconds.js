/** hoursToSeconds: see test/hours-to-seconds.test.js. */
const hoursToSeconds = (h) => h * 360;

module.exports = { hoursToSeconds };
