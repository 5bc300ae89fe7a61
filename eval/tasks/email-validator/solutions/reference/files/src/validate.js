/** Whether `text` looks like an e-mail address we can send to (one line, one @, a dotted domain). */
function isEmail(text) {
  return /^[a-z0-9._%+'-]+@(?:[a-z0-9-]+\.)+[a-z]{2,}$/i.test(text);
}

module.exports = { isEmail };
