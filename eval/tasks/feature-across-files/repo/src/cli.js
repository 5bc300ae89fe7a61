const { greet } = require("./greet");

const args = process.argv.slice(2);
const name = args[0] ?? "world";
console.log(greet(name));
