function greet(name) {
  return `Hello, ${name}!`;
}

function shout(text) {
  return text.toUpperCase();
}

module.exports = { greet, shout };
