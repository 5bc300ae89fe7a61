const s = require(require("node:path").resolve("src/settings.js"));
const fail = (m) => { console.error(m); process.exit(1); };
if (s.retries !== 5) fail("retries is " + s.retries);
if (s.timeoutMs !== 2000) fail("the person's timeoutMs was lost");
if (s.backoffMs !== 500) fail("backoffMs changed");
