const { execFileSync } = require("node:child_process");
const run = (...a) => execFileSync("node", ["src/cli.js", ...a], { encoding: "utf8" }).trim();
const fail = (m) => { console.error(m); process.exit(1); };
if (run("Ada") !== "Hello, Ada!") fail("plain greeting broke: " + run("Ada"));
if (run("--shout", "Ada") !== "HELLO, ADA!") fail("--shout prints: " + run("--shout", "Ada"));
const greet = require(require("node:path").resolve("src/greet.js"));
if (Object.keys(greet).length < 2) fail("src/greet.js exports no capitalising function");
