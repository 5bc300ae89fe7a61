module.exports = {
  connectTimeoutMs: 5000,
  readTimeoutMs: 30_000,
  idleTimeoutMs: 60000,
};
