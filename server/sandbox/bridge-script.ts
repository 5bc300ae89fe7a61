// The sandbox's first process. The sandbox has its own network namespace with only loopback, so
// this listens on 127.0.0.1:<port> inside it and carries every connection to the egress proxy's
// Unix socket, bound in from the server; then it runs the real command and ends as it ends.
// It starts the command in its own process group only when asked to: an interactive shell in a
// PTY takes the terminal's foreground group itself, and job control keeps working.
// Plain CommonJS run by the host's node binary; it is written into the sandbox's runtime folder.
export const BRIDGE_SCRIPT = `"use strict";
const net = require("node:net");
const { spawn } = require("node:child_process");
const [port, socketPath, file, ...args] = process.argv.slice(2);
// Buffers of 1 MiB, as the proxy's (egress-proxy.ts, PIPE_BUFFER_BYTES and readInto): the 16 KiB
// default paused and resumed the reader on every 64 KiB chunk of a download. Reads go into two
// 1 MiB buffers kept for the connection instead of node's 64 KiB ones: fewer reads, writes and
// callbacks per byte, and no page faults of a fresh buffer per read. A buffer goes back to the
// pool once its write is done (at once when the kernel took it all); with none free, reading
// pauses, which is the back-pressure.
const BUFFER = 1024 * 1024;
const READ_BUFFERS = 2;
const onread = (to, from) => {
  const free = [];
  let made = 0;
  let waiting = false;
  const release = (buffer) => {
    free.push(buffer);
    if (!waiting) return;
    waiting = false;
    from().resume();
  };
  return {
    buffer: () => free.pop() ?? (made++, Buffer.allocUnsafe(BUFFER)),
    callback: (bytes, buffer) => {
      let done = false;
      to.write(buffer.subarray(0, bytes), () => {
        if (!done) release(buffer);
        done = true;
      });
      if (!done && to.writableLength === 0) {
        done = true;
        free.push(buffer);
      }
      if (free.length > 0 || made < READ_BUFFERS) return true;
      waiting = true;
      return false;
    },
  };
};
const server = net.createServer({ highWaterMark: BUFFER }, (client) => {
  const upstream = net.connect({ path: socketPath, highWaterMark: BUFFER, onread: onread(client, () => upstream) });
  const end = () => { client.destroy(); upstream.destroy(); };
  client.on("error", end);
  upstream.on("error", end);
  client.on("close", end);
  // What is still queued for the command goes out before its connection closes.
  upstream.on("close", () => (client.writableFinished || client.destroyed ? end() : client.end().once("finish", end)));
  client.pipe(upstream);
});
server.on("error", (error) => {
  process.stderr.write("tandem: the network bridge could not start: " + error.message + "\\n");
  process.exit(126);
});
server.listen(Number(port), "127.0.0.1", () => {
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
});
`;
