module.exports = {
  connectTimeoutMs: 5000,
  readTimeoutMs: 30000,
  idleTimeoutMs: 60000,
};
