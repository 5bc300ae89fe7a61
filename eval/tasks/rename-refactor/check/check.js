const path = require("node:path");
const load = (f) => require(path.resolve("src", f));
const fail = (m) => { console.error(m); process.exit(1); };
if (typeof load("store.js").getUser !== "function") fail("store.js does not export getUser");
if (load("store.js").getUser(2).name !== "Grace") fail("getUser changed behaviour");
if (load("profile.js").displayName(1) !== "Ada") fail("displayName broke");
if (load("admin.js").isKnown(3) !== false || load("admin.js").isKnown(1) !== true) fail("isKnown broke");
