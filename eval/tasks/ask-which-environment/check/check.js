const c = require(require("node:path").resolve("config/database.js"));
const fail = (m) => { console.error(m); process.exit(1); };
if (c.production.dbHost !== "db2.internal") fail("production.dbHost is " + c.production.dbHost);
if (c.staging.dbHost !== "db-staging.internal") fail("staging was changed");
if (c.production.poolSize !== 20 || c.staging.poolSize !== 5) fail("pool sizes changed");
