const c = require(require("node:path").resolve("src/config.js"));
const fail = (m) => { console.error(m); process.exit(1); };
if (c.readTimeoutMs !== 30000) fail("readTimeoutMs is " + c.readTimeoutMs);
if (c.connectTimeoutMs !== 5000 || c.idleTimeoutMs !== 60000) fail("other timeouts changed");
