module.exports = {
  connectTimeoutMs: 5000,
  readTimeoutMs: 10000,
  idleTimeoutMs: 60000,
};
