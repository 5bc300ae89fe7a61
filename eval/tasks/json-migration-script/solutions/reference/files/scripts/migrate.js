// node scripts/migrate.js <v1 file> <v2 file>: users v1 -> v2 (docs/users-v2.md).
const fs = require("node:fs");

const [from, to] = process.argv.slice(2);
if (!from || !to) {
  console.error("Usage: node scripts/migrate.js <v1 file> <v2 file>");
  process.exit(2);
}
const users = JSON.parse(fs.readFileSync(from, "utf8")).map((u) => {
  const [firstName, ...rest] = u.name.trim().split(/\s+/);
  return { firstName, lastName: rest.join(" "), email: u.mail.toLowerCase(), roles: u.admin ? ["admin"] : [] };
});
fs.writeFileSync(to, `${JSON.stringify({ version: 2, users }, null, 2)}\n`);
