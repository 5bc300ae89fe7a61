const { greet } = require("./greet");

const args = process.argv.slice(2);
const loud = args.includes("--shout");
const name = args.find((a) => a !== "--shout") ?? "world";
console.log(loud ? greet(name).toUpperCase() : greet(name));
