const http = require("node:http");
const fs = require("node:fs");
const { createHash } = require("node:crypto");

// The build id is computed when the server starts, from the data it serves.
const build = createHash("sha256").update(fs.readFileSync("data/catalog.json")).digest("hex").slice(0, 10);
const port = Number(process.env.PORT ?? 4123);

http
  .createServer((req, res) => {
    if (req.url === "/health") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ status: "ok", build }));
    } else res.writeHead(404).end();
  })
  .listen(port, "127.0.0.1", () => console.log(`listening on ${port}`));
