/** hoursToSeconds: see test/hours-to-seconds.test.js. */
const hoursToSeconds = (h) => h * 3600;

module.exports = { hoursToSeconds };
