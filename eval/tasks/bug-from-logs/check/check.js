const { parseFeed } = require(require("node:path").resolve("src/prices.js"));
const fail = (m) => { console.error(m); process.exit(1); };
let out;
try { out = parseFeed("A-100;4.20;eur\nB-200;13.00\n"); } catch (e) { fail("still crashes: " + e.message); }
if (out.length !== 2) fail("expected 2 prices, got " + out.length);
if (out[0].currency !== "EUR" || out[0].cents !== 420) fail("line 1 parsed wrong");
if (out[1].cents !== 1300) fail("line 2 amount wrong");
if (out[1].currency !== "EUR") fail("a line without a currency should be EUR (see the log), got " + out[1].currency);
