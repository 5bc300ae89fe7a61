module.exports = {
  connectTimeoutMs: 30000,
  readTimeoutMs: 30000,
  idleTimeoutMs: 30000,
};
