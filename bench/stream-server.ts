// The Tandem side of bench/stream.ts, in its own process as in production: services on an
// embedded Postgres, the tRPC router over HTTP and WebSocket (the handlers server/start-server.ts
// mounts, without Next.js). Reports its URL, and on request its RSS and rows written, over IPC.
import fs from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { createHTTPHandler } from "@trpc/server/adapters/standalone";
import { applyWSSHandler } from "@trpc/server/adapters/ws";
import { toNodeHandler } from "better-auth/node";
import { WebSocketServer } from "ws";
import { appRouter } from "@/server/api/root";
import { createConnectionContext, createContext } from "@/server/api/context";
import { CLIENT_IP_HEADER } from "@/server/auth/auth";
import { coalesceWritesPerTask } from "@/server/http/coalesce-writes";
import { loadConfig } from "@/server/env/load-config";
import { createServices } from "@/server/services";

const modelUrl = process.argv[2]!;
const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "tandem-bench-stream-"));
const config = loadConfig({
  TANDEM_DATA_DIR: dataDir,
  TANDEM_SANDBOX: "none",
  TANDEM_MODEL: "openai-compatible:bench",
  TANDEM_OPENAI_COMPATIBLE_BASE_URL: modelUrl,
  TANDEM_OPENAI_COMPATIBLE_API_KEY: "bench",
  // 0 streams the models on the server's thread, as before the model thread (for comparison).
  TANDEM_MODEL_THREAD: process.env.TANDEM_MODEL_THREAD,
});
const { services, dispose } = await createServices(config, () => {});
const headersOf = (req: http.IncomingMessage) => {
  const headers = new Headers();
  for (const [key, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(key, value);
  return headers;
};
const trpcHttp = createHTTPHandler({
  router: appRouter,
  basePath: "/api/trpc/",
  createContext: ({ req }) => createContext(services, headersOf(req)),
});
const authHandler = toNodeHandler(services.auth);
const server = http.createServer((req, res) => {
  req.headers[CLIENT_IP_HEADER] = req.socket.remoteAddress ?? "unknown";
  return req.url?.startsWith("/api/auth/") ? authHandler(req, res) : trpcHttp(req, res);
});
const wss = new WebSocketServer({ noServer: true });
// A connection's context as server/start-server.ts makes it: its user re-read per call (cached a second).
applyWSSHandler({
  wss,
  router: appRouter,
  createContext: ({ req, res, info }) =>
    createConnectionContext(services, headersOf(req), info.connectionParams, (cleanup) => res.once("close", cleanup)),
});
server.on("upgrade", (req, socket, head) =>
  wss.handleUpgrade(req, socket, head, (ws) => {
    coalesceWritesPerTask(socket);
    wss.emit("connection", ws, req);
  }),
);
await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));

let peakRss = process.memoryUsage().rss;
setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage.rss())), 50).unref();
// How late the event loop runs its callbacks: every delta, write and socket send waits behind it.
// The histogram holds the time between its timer's runs, the resolution included: an idle loop
// reads 10 ms. The figures sent are what exceeds the resolution, the lateness itself.
const LOOP_RESOLUTION_MS = 10;
const loopDelay = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
loopDelay.enable();
const lateness = (ns: number) => Math.max(0, ns / 1e6 - LOOP_RESOLUTION_MS);

process.on("message", async (message: { type: string }) => {
  if (message.type === "stats") {
    process.send!({
      type: "stats",
      rowsWritten: services.agent.stats.rowsWritten,
      inserts: services.agent.stats.inserts,
      deltasPublished: services.agent.stats.deltasPublished,
      rss: process.memoryUsage().rss,
      peakRss,
      loopDelayP50: lateness(loopDelay.percentile(50)),
      loopDelayP99: lateness(loopDelay.percentile(99)),
      loopDelayMax: lateness(loopDelay.max),
      cpuMs: (process.cpuUsage().user + process.cpuUsage().system) / 1e3,
    });
    peakRss = process.memoryUsage().rss;
    loopDelay.reset();
  }
  if (message.type === "stop") {
    for (const client of wss.clients) client.terminate();
    server.closeAllConnections();
    server.close();
    await dispose();
    await fs.rm(dataDir, { recursive: true, force: true });
    process.exit(0);
  }
});
process.send!({ type: "ready", url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
