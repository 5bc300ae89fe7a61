module.exports = {
  retries: 3,
  backoffMs: 500,
};
