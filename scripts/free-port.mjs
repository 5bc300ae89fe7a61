// Plain JavaScript (types in free-port.d.mts), so that scripts/e2e.mjs uses it as the tests and
// benchmarks do.
import { readFileSync } from "node:fs";
import net from "node:net";

/** Below here are the ports that well-known services are configured on. */
const LOWEST = 20_000;

/**
 * A loopback port that is free now, for a test's counterpart or a Tandem instance to listen on
 * once it has started. It comes from below the kernel's ephemeral range (Linux's
 * ip_local_port_range, 32768-60999 unless set otherwise): a port the kernel hands out for
 * listen(0) is handed out again, to any outgoing connection or listen(0) of the tests running
 * beside, before whoever it was picked for binds it. CI lost a cluster instance that way
 * (EADDRINUSE), and a browser test the forge API port that scripts/e2e.mjs had picked minutes
 * before. Below the range only another caller of this function can take it, and it picks at
 * random among some 12,000.
 */
export async function freePort() {
  const below = ephemeralFloor();
  for (let attempt = 0; attempt < 20; attempt++) {
    const port = LOWEST + Math.floor(Math.random() * (below - LOWEST));
    if (await listens(port)) return port;
  }
  throw new Error(`no free port found between ${LOWEST} and ${below}`);
}

function ephemeralFloor() {
  try {
    const low = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    if (Number.isInteger(low) && low > LOWEST + 1000) return low;
  } catch {
    // Not Linux: macOS and Windows hand out ephemeral ports from 49152 up.
  }
  return 32_768;
}

/** Whether something could listen on `port` now (it is closed again before this returns). */
function listens(port) {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}
