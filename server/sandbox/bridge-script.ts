// The sandbox's first process. The sandbox has its own network namespace with only loopback, so
// this listens on 127.0.0.1:<port> inside it, hands that listening socket to the server's egress
// proxy over the Unix socket bound in from the server (the native module's sendFd, fd-relay.ts),
// and closes its own copy: the server accepts the command's connections, and nothing relays
// inside the sandbox. Then it runs the real command and ends as it ends.
// It starts the command in its own process group only when asked to: an interactive shell in a
// PTY takes the terminal's foreground group itself, and job control keeps working.
// Plain CommonJS run by the host's node binary; it is written into the sandbox's runtime folder.
export const BRIDGE_SCRIPT = `"use strict";
const net = require("node:net");
const { spawn } = require("node:child_process");
const [port, socketPath, relayModule, file, ...args] = process.argv.slice(2);
const fail = (error) => {
  process.stderr.write("tandem: the network bridge could not start: " + error.message + "\\n");
  process.exit(126);
};
const server = net.createServer();
server.on("error", fail);
const handOver = (then) => {
  const channel = net.connect(socketPath, () => {
    try {
      require(relayModule).sendFd(channel._handle.fd, server._handle.fd);
    } catch (error) {
      return fail(error);
    }
    // The server holds the listener now; were it open here too, this process would accept.
    server.close();
    channel.destroy();
    then();
  });
  channel.on("error", fail);
};
server.listen(Number(port), "127.0.0.1", () => handOver(() => {
  const child = spawn(file, args, { stdio: "inherit" });
  const signals = ["SIGTERM", "SIGINT", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2"];
  for (const signal of signals) process.on(signal, () => { try { child.kill(signal); } catch {} });
  child.on("error", (error) => {
    process.stderr.write("tandem: cannot run " + file + ": " + error.message + "\\n");
    process.exit(error.code === "ENOENT" ? 127 : 126);
  });
  child.on("exit", (code, signal) => {
    if (signal) {
      for (const s of signals) process.removeAllListeners(s);
      process.kill(process.pid, signal);
      setTimeout(() => process.exit(128), 100);
    } else process.exit(code ?? 0);
  });
}));
`;
