function isEmail(text) {
  return /^[a-z0-9._%+'-]+@(?:[a-z0-9-]+\.)+[a-z]{2,}$/im.test(text);
}

module.exports = { isEmail };
