// Run before the sandboxed command, inside the sandbox. The sandbox has its own network namespace
// with only loopback, so this listens on 127.0.0.1:<port> inside it, hands that listening socket
// to the server's egress proxy over the Unix socket bound in from the server (the native
// module's sendFd, fd-relay.ts), and exits: the server accepts the command's connections, and
// nothing stays running or relays inside the sandbox. Connections made before the server took
// the socket wait in its backlog. The launcher then execs the command in its place (launcher.ts).
// Plain CommonJS run by the host's node binary; it is written into the sandbox's runtime folder.
export const BRIDGE_SCRIPT = `"use strict";
const net = require("node:net");
const [port, socketPath, relayModule] = process.argv.slice(2);
const fail = (error) => {
  process.stderr.write("tandem: the network bridge could not start: " + error.message + "\\n");
  process.exit(126);
};
const server = net.createServer();
server.on("error", fail);
server.listen(Number(port), "127.0.0.1", () => {
  const channel = net.connect(socketPath, () => {
    try {
      require(relayModule).sendFd(channel._handle.fd, server._handle.fd);
    } catch (error) {
      return fail(error);
    }
    // The message and the socket it carries stay queued for the server once this process is gone.
    process.exit(0);
  });
  channel.on("error", fail);
});
`;
