import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { createProxyServer } from "http-proxy-3";

// A small load balancer in front of several Tandem instances, for tests and benchmarks: HTTP and
// WebSocket upgrades go round-robin to the instances (http-proxy-3 does the proxying). An instance
// that refuses a connection is skipped for a while, so a client that reconnects after an instance
// died lands on a live one, as behind a real balancer with health checks.

export type LoadBalancer = { url: string; close(): Promise<void> };

const DOWN_MS = 3_000;

export async function startLoadBalancer(targets: () => string[]): Promise<LoadBalancer> {
  const proxy = createProxyServer({ xfwd: true, ws: true });
  const downUntil = new Map<string, number>();
  let next = 0;

  const pick = (): string | null => {
    const live = targets().filter((target) => (downUntil.get(target) ?? 0) <= Date.now());
    if (!live.length) return null;
    return live[next++ % live.length]!;
  };
  const markDown = (target: string, error: unknown) => {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ECONNREFUSED" || code === "ECONNRESET") downUntil.set(target, Date.now() + DOWN_MS);
  };

  const server = http.createServer((req, res) => {
    const target = pick();
    if (!target) return void res.writeHead(503).end("no instance is up");
    proxy.web(req, res, { target }, (error) => {
      markDown(target, error);
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
  });
  const sockets = new Set<Duplex>();
  server.on("upgrade", (req, socket: Duplex, head) => {
    const target = pick();
    if (!target) return void socket.destroy();
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
    proxy.ws(req, socket, head, { target }, (error) => {
      markDown(target, error);
      socket.destroy();
    });
  });
  // An instance killed mid-connection: the proxied socket errors; the client sees a close.
  proxy.on("error", () => {});

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      for (const socket of sockets) socket.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      proxy.close();
    },
  };
}
