// The process that stands for a workspace's network namespace (workspace-network.ts). It runs
// sandboxed like any other process of the workspace, after the network bridge (bridge-script.ts),
// and answers the server over Node's IPC channel: the namespace's identity (the inode of its
// /proc/self/ns/net, so the server knows the descriptor it opened is this namespace and not a
// reused pid's), the kernel's socket tables (which ports listen), and connections to a port on
// the namespace's loopback, handed to the server as sockets, so the preview reads and writes
// the dev server directly and nothing is relayed in here.
// Plain CommonJS run by the host's node binary; it is written into the sandbox's runtime folder.
export const HOLDER_SCRIPT = `"use strict";
const fs = require("node:fs");
const net = require("node:net");
const read = (file) => {
  try {
    return fs.readFileSync(file, "utf8");
  } catch {
    return "";
  }
};
const connect = (id, port, hosts) => {
  const socket = net.connect({ host: hosts[0], port });
  socket.once("error", (error) => {
    if (hosts.length > 1) return connect(id, port, hosts.slice(1));
    process.send({ id, error: error.code || error.message });
  });
  socket.once("connect", () => process.send({ id, ok: true }, socket));
};
process.on("message", (message) => {
  if (!message || typeof message !== "object") return;
  const { id, kind } = message;
  if (kind === "tables") process.send({ id, tcp: read("/proc/net/tcp"), tcp6: read("/proc/net/tcp6") });
  else if (kind === "connect" && Number.isInteger(message.port)) connect(id, message.port, ["127.0.0.1", "::1"]);
});
process.on("disconnect", () => process.exit(0));
process.send({ kind: "ready", netns: fs.statSync("/proc/self/ns/net").ino });
`;
