const fs = require("node:fs");
const [from, to] = process.argv.slice(2);
const users = JSON.parse(fs.readFileSync(from, "utf8")).map((u) => {
  const parts = u.name.split(" ");
  return { firstName: parts.slice(0, -1).join(" ") || parts[0], lastName: parts.length > 1 ? parts.at(-1) : "", email: u.mail.toLowerCase(), roles: u.admin ? ["admin"] : [] };
});
fs.writeFileSync(to, JSON.stringify({ version: 2, users }));
