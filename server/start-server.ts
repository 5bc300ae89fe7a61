import http from "node:http";
import type net from "node:net";
import type { Duplex } from "node:stream";
import { createHTTPHandler } from "@trpc/server/adapters/standalone";
import { applyWSSHandler } from "@trpc/server/adapters/ws";
import { BoundedWebSocketServer } from "@/server/http/bounded-sockets";
import { toNodeHandler } from "better-auth/node";
import next from "next";
import { appRouter } from "@/server/api/root";
import { createConnectionContext, createContext, type Services } from "@/server/api/context";
import { CLIENT_IP_HEADER } from "@/server/auth/auth";
import { PREVIEW_FRAMES_HEADER } from "@/lib/preview-frame";
import { authorizeProject } from "@/server/api/access";
import { FILE_TRANSFER_PREFIX, handleFileTransfer } from "@/server/http/file-transfer";
import { handleProjectWebhook, WEBHOOK_PREFIX } from "@/server/http/project-webhook";
import { coalesceWritesPerTask } from "@/server/http/coalesce-writes";
import { headersOf } from "@/server/http/headers";
import { upgradeLiveDoc } from "@/server/http/live-doc-sockets";
import { originAllowed } from "@/server/http/origin";
import { listenPreviews, type PreviewListener } from "@/server/http/preview-listener";
import { upgradeLanguage, upgradeTerminal } from "@/server/http/project-sockets";
import { createPublicFiles, createStaticAssets, STATIC_PREFIX } from "@/server/http/static-assets";
import { collectStartupGarbage, warmUp } from "@/server/http/warm-up";
import { warmUpFirstScreen } from "@/server/services/first-screen";
import { TERMINAL_WS_PATH } from "@/lib/terminal-protocol";
import { LANGUAGE_WS_PATH, MAX_LANGUAGE_FRAME_BYTES } from "@/lib/language-protocol";
import { LIVE_DOC_WS_PATH, MAX_LIVE_FRAME_BYTES } from "@/lib/live-doc-protocol";
import {
  createWorkspaceForwarding,
  FORWARDED_HEADER,
  spendOnDatabase,
  type Arrival,
} from "@/server/cluster/workspace-forwarding";
import { peerUrl, type WorkspaceHost } from "@/server/cluster/workspace-host";
import { HOLD_PATH } from "@/server/cluster/remote-workspace-host";

// One HTTP server on one port: Next pages, better-auth, tRPC over HTTP and WebSocket, the
// project sockets (server/http/project-sockets.ts), file uploads and downloads; and the previews'
// server on a port of its own (server/http/preview-listener.ts).

export type RunningServer = { server: http.Server; url: string; close(): Promise<void> };

/** `pages: false` serves only the API (tests of the HTTP and WebSocket endpoints). */
export async function startServer(
  services: Services,
  options: { dir: string; pages?: boolean },
): Promise<RunningServer> {
  const { config } = services;
  const nextApp =
    options.pages === false
      ? null
      : next({ dev: config.dev, dir: options.dir, hostname: config.host, port: config.port });
  await nextApp?.prepare();
  const handleNext =
    nextApp?.getRequestHandler() ??
    ((_req: http.IncomingMessage, res: http.ServerResponse) => void res.writeHead(404).end());
  const nextUpgrade = config.dev ? nextApp?.getUpgradeHandler() : undefined;
  const staticAssets = nextApp && !config.dev ? createStaticAssets(options.dir) : null;
  const publicFiles = nextApp ? createPublicFiles(options.dir, { dev: config.dev }) : null;

  const handleAuth = toNodeHandler(services.auth);
  // A production server with pages reports itself healthy once its first page loads are warm (warm-up.ts).
  let ready = !nextApp || config.dev;
  const handleTrpc = createHTTPHandler({
    router: appRouter,
    basePath: "/api/trpc/",
    createContext: ({ req }) => createContext(services, headersOf(req)),
    onError: ({ error, path }) => {
      if (error.code === "INTERNAL_SERVER_ERROR") console.error(`tRPC ${path ?? "?"}:`, error.cause ?? error);
    },
  });

  // In a cluster, requests for a project's live resources go to the instance holding them.
  const forwarding = services.workspaces
    ? createWorkspaceForwarding({
        secret: services.workspaces.forwardingSecret,
        host: services.workspaces.host,
        mayRead: async (req, projectId) =>
          !!(await authorizeProject(await createContext(services, headersOf(req)), projectId, "read").catch(
            () => null,
          )),
        spend: spendOnDatabase(services.db),
      })
    : null;
  const runner = services.workspaces?.runner ?? false;
  /** Who sent the request, and the client's address, set here so a client cannot pick its own rate-limit key. */
  const arrived = (req: http.IncomingMessage, arrival: Arrival): Arrival => {
    req.headers[CLIENT_IP_HEADER] =
      arrival.kind === "forwarded" ? arrival.clientIp : (req.socket.remoteAddress ?? "unknown");
    return arrival;
  };
  /** A peer's signature is spent in the database (workspace-forwarding.ts); a request without one is direct at once. */
  const arrive = (req: http.IncomingMessage, then: (arrival: Arrival) => void, failed: () => void) => {
    if (!forwarding || req.headers[FORWARDED_HEADER] === undefined) return then(arrived(req, { kind: "direct" }));
    forwarding.arrival(req).then(
      (arrival) => then(arrived(req, arrival)),
      (error: unknown) => {
        console.error("serving a forwarded request:", error);
        failed();
      },
    );
  };
  /** A forged forwarding header is refused; a workspace runner serves only requests its peers signed. */
  const refused = (arrival: Arrival) => arrival.kind === "forged" || (runner && arrival.kind === "direct");
  /**
   * Whether a request may still go to the project's holder: one from a client, or on a runner, one
   * a web instance forwarded (the runner it reached may not hold the project). Otherwise it is served here.
   */
  const routed = (arrival: Arrival) =>
    forwarding && (arrival.kind === "direct" || (runner && arrival.kind === "forwarded" && arrival.hops === 1))
      ? forwarding
      : null;

  /** The previews' server, once it listens; a peer's signed preview request reaches it through this port. */
  let previews: PreviewListener | null = null;

  const server = http.createServer((req, res) =>
    arrive(
      req,
      (arrival) => serve(req, res, arrival),
      () => {
        if (!res.headersSent) res.writeHead(500);
        res.end();
      },
    ),
  );
  function serve(req: http.IncomingMessage, res: http.ServerResponse, arrival: Arrival) {
    if (arrival.kind !== "direct" && previews?.fromPeer(req, res, arrival)) return;
    const url = req.url ?? "/";
    if (url.startsWith("/api/")) {
      if (refused(arrival) && url !== "/api/health") {
        res
          .writeHead(403, { "content-type": "application/json" })
          .end(JSON.stringify({ error: "Forwarded request refused." }));
        return;
      }
      if (req.method !== "GET" && req.method !== "HEAD" && !originAllowed(req, config.publicUrl)) {
        res
          .writeHead(403, { "content-type": "application/json" })
          .end(JSON.stringify({ error: "Cross-origin request refused." }));
        return;
      }
    }
    if (url.startsWith(`${HOLD_PATH}?`) && services.workspaces)
      return void holdForPeer(services.workspaces.host, req, res, arrival);
    if (url === "/api/health")
      return void res.writeHead(ready ? 200 : 503, { "content-type": "text/plain" }).end(ready ? "ok" : "starting");
    if (url.startsWith("/api/auth/")) return void handleAuth(req, res);
    const forwardTo = url.startsWith("/api/trpc/") ? routed(arrival) : null;
    if (forwardTo) {
      forwardTo
        .forwardTrpc(req, res, arrival)
        .then((forwarded) => forwarded || handleTrpc(req, res))
        .catch((error: unknown) => {
          console.error("forwarding a tRPC request:", error);
          if (!res.headersSent) res.writeHead(500);
          res.end();
        });
      return;
    }
    if (url.startsWith("/api/trpc/")) return void handleTrpc(req, res);
    if (url.startsWith(WEBHOOK_PREFIX)) return void handleProjectWebhook(services, req, res);
    if (url.startsWith(FILE_TRANSFER_PREFIX))
      return void handleFileTransfer(services, req, res, () => createContext(services, headersOf(req)));
    // The pages' frame-src names the previews' origins (proxy.ts): the Preview panel frames them.
    req.headers[PREVIEW_FRAMES_HEADER] = services.previews.frameSource() ?? "";
    if (staticAssets && url.startsWith(STATIC_PREFIX)) return staticAssets(req, res, () => void handleNext(req, res));
    if (publicFiles) return publicFiles(req, res, () => void handleNext(req, res));
    void handleNext(req, res);
  }

  const trpcWss = new BoundedWebSocketServer({ noServer: true, maxPayload: 1 << 20 });
  const wsHandler = applyWSSHandler({
    wss: trpcWss,
    router: appRouter,
    createContext: ({ req, res, info }) =>
      createConnectionContext(services, headersOf(req), info.connectionParams, (cleanup) => res.once("close", cleanup)),
    keepAlive: { enabled: true, pingMs: 30_000, pongWaitMs: 5_000 },
  });
  const terminalWss = new BoundedWebSocketServer({ noServer: true, maxPayload: 1 << 20 });
  const languageWss = new BoundedWebSocketServer({ noServer: true, maxPayload: MAX_LANGUAGE_FRAME_BYTES });
  const liveWss = new BoundedWebSocketServer({ noServer: true, maxPayload: MAX_LIVE_FRAME_BYTES });
  /** The project's own sockets (server/http/project-sockets.ts), by path. */
  const projectSockets = new Map([
    [TERMINAL_WS_PATH, { what: "terminal", wss: terminalWss, upgrade: upgradeTerminal }],
    [LANGUAGE_WS_PATH, { what: "language", wss: languageWss, upgrade: upgradeLanguage }],
    [LIVE_DOC_WS_PATH, { what: "live document", wss: liveWss, upgrade: upgradeLiveDoc }],
  ]);

  server.on("upgrade", (req, socket, head) =>
    arrive(
      req,
      (arrival) => upgrade(req, socket, head, arrival),
      () => socket.destroy(),
    ),
  );
  function upgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer, arrival: Arrival) {
    if (arrival.kind !== "direct" && previews?.fromPeerUpgrade(req, socket, head, arrival)) return;
    const url = new URL(req.url ?? "/", "http://local");
    const refuse = (status: number, message: string) => {
      socket.end(`HTTP/1.1 ${status} ${message}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    };
    const projectSocket = projectSockets.get(url.pathname);
    if (url.pathname !== "/api/trpc/ws" && !projectSocket) {
      if (nextUpgrade) return void nextUpgrade(req, socket, head);
      return void socket.destroy();
    }
    if (!originAllowed(req, config.publicUrl)) return refuse(403, "Forbidden");
    if (refused(arrival)) return refuse(403, "Forbidden");
    if (!projectSocket) {
      trpcWss.handleUpgrade(req, socket, head, (ws) => {
        coalesceWritesPerTask(socket);
        trpcWss.emit("connection", ws, req);
      });
      return;
    }
    const forwardTo = routed(arrival);
    const route = forwardTo ? { forwarding: forwardTo, arrival } : null;
    projectSocket
      .upgrade({ services, route, wss: projectSocket.wss, req, socket, head, url })
      .catch((error: unknown) => {
        console.error(`${projectSocket.what} upgrade:`, error);
        refuse(500, "Internal Server Error");
      });
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  const host = config.host.includes(":") ? `[${config.host}]` : config.host;
  const listenUrl = `http://${host === "0.0.0.0" ? "localhost" : host}:${port}`;
  services.workspaces?.host.start(config.instanceUrl ?? peerUrl(config.host, port, listenUrl));
  previews = await listenPreviews(
    services,
    forwarding ? { forwarding, routed: (arrival) => routed(arrival) !== null } : undefined,
  );
  const previewServer = previews.server;

  if (!ready) {
    await warmUp(listenUrl);
    await warmUpFirstScreen({ ...services, servesFiles: !services.workspaces }).catch((error: unknown) =>
      console.warn("warm-up: the first screen's reads failed; the first visitor pays for them:", error),
    );
    collectStartupGarbage();
    ready = true;
  }

  return {
    server,
    url: listenUrl,
    async close() {
      forwarding?.close();
      wsHandler.broadcastReconnectNotification();
      for (const client of [...trpcWss.clients, ...terminalWss.clients, ...languageWss.clients, ...liveWss.clients])
        client.terminate();
      trpcWss.close();
      liveWss.close();
      terminalWss.close();
      languageWss.close();
      server.closeAllConnections();
      previewServer.closeAllConnections();
      previews?.closeSockets();
      // Both stop listening at once, right after their connections were cut: awaiting one first
      // let the other take new connections that nothing closed, and shutdown never got past it
      // (cluster.test: a stopped instance kept its workspace leases).
      const closed = (s: net.Server) => new Promise<void>((resolve) => s.close(() => resolve()));
      await Promise.all([closed(previews.listener), closed(previewServer), closed(server)]);
      await nextApp?.close?.();
    },
  };
}

/**
 * A web instance asks this workspace runner to hold a project, so that its files are watched while
 * someone views them there (remote-workspace-host.ts). Only a peer's signed request is served: the
 * viewer's rights were checked where they are connected.
 */
function holdForPeer(host: WorkspaceHost, req: http.IncomingMessage, res: http.ServerResponse, arrival: Arrival) {
  const projectId = new URL(req.url ?? "/", "http://local").searchParams.get("projectId");
  if (arrival.kind !== "forwarded" || req.method !== "POST" || !projectId) {
    res
      .writeHead(403, { "content-type": "application/json" })
      .end(JSON.stringify({ error: "Only a signed request from a peer instance may ask this." }));
    return;
  }
  host
    .hold(projectId)
    .then(() => res.writeHead(204).end())
    .catch((error: unknown) => {
      console.error("holding a project for a peer:", error);
      res.writeHead(503).end();
    });
}
