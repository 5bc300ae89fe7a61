const { route } = require("./router");
const http = require("node:http");

http.createServer((req, res) => route(req, res)).listen(3000);
