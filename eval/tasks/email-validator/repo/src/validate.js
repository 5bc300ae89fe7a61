/** Whether `text` looks like an e-mail address we can send to. */
function isEmail(text) {
  return /^[a-z0-9.]+@[a-z0-9-]+\.[a-z]{2,}$/.test(text);
}

module.exports = { isEmail };
