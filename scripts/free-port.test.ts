import { existsSync, readFileSync } from "node:fs";
import net from "node:net";
import { expect, it } from "vitest";
import { freePort } from "./free-port.mjs";

const RANGE = "/proc/sys/net/ipv4/ip_local_port_range";

it.runIf(existsSync(RANGE))(
  "gives ports a server can listen on, below the range the kernel hands out to listen(0) and outgoing connections",
  async () => {
    const ephemeralFloor = Number(readFileSync(RANGE, "utf8").trim().split(/\s+/)[0]);
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    for (const port of ports) expect(port).toBeLessThan(ephemeralFloor);
    const server = net.createServer();
    await new Promise<void>((resolve, reject) => server.once("error", reject).listen(ports[0], "127.0.0.1", resolve));
    await new Promise((resolve) => server.close(resolve));
  },
);
