const { greet, shout } = require("./greet");

const args = process.argv.slice(2);
const loud = args.includes("--shout");
const name = args.find((a) => a !== "--shout") ?? "world";
const text = greet(name);
console.log(loud ? shout(text) : text);
