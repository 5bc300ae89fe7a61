import http from "node:http";
import type { Duplex } from "node:stream";
import { createHTTPHandler } from "@trpc/server/adapters/standalone";
import { applyWSSHandler } from "@trpc/server/adapters/ws";
import { toNodeHandler } from "better-auth/node";
import next from "next";
import { WebSocketServer, type WebSocket } from "ws";
import { appRouter } from "@/server/api/root";
import { createConnectionContext, createContext, type Context, type Services } from "@/server/api/trpc";
import type { ProjectRole } from "@/server/db/repositories/projects";
import { CLIENT_IP_HEADER } from "@/server/auth/auth";
import { PREVIEW_FRAMES_HEADER } from "@/lib/preview-frame";
import { authorizeProject, authorizeSession, mayTypeInTerminal, WRITE_ROLES } from "@/server/api/access";
import { touchedFiles, touchedOnly } from "@/server/api/share-files";
import { FILE_TRANSFER_PREFIX, handleFileTransfer } from "@/server/http/file-transfer";
import { coalesceWritesPerTask } from "@/server/http/coalesce-writes";
import { originAllowed } from "@/server/http/origin";
import { createPublicFiles, createStaticAssets, STATIC_PREFIX } from "@/server/http/static-assets";
import { warmUp } from "@/server/http/warm-up";
import { TERMINAL_WS_PATH, TerminalCloseCode } from "@/lib/terminal-protocol";
import { LANGUAGE_WS_PATH, MAX_LANGUAGE_FRAME_BYTES } from "@/lib/language-protocol";
import { handleLanguageSocket } from "@/server/language/language-socket";
import { MAIN_TREE, treeIdOf, treeKey, treeNameSchema } from "@/lib/trees";
import { LIVE_DOC_WS_PATH, LiveDocCloseCode, MAX_LIVE_FRAME_BYTES, colorOf } from "@/lib/live-doc-protocol";
import { NotLiveError } from "@/server/live-docs/live-docs";
import { serveLiveDoc } from "@/server/live-docs/live-doc-socket";
import { openFilesRoom } from "@/server/bus/presence";
import { isWorkspaceError } from "@/server/workspace";
import { specForServer } from "@/server/language/registry";
import {
  createWorkspaceForwarding,
  type Arrival,
  type WorkspaceForwarding,
} from "@/server/cluster/workspace-forwarding";
import { peerUrl, type WorkspaceHost } from "@/server/cluster/workspace-host";
import { HOLD_PATH } from "@/server/cluster/remote-workspace-host";
import { createPreviewHandlers } from "@/server/preview/preview-server";

// One HTTP server on one port: Next pages, better-auth, tRPC over HTTP and WebSocket, terminals,
// file uploads and downloads.

export type RunningServer = { server: http.Server; url: string; close(): Promise<void> };

const headersOf = (req: http.IncomingMessage) => {
  const headers = new Headers();
  for (const [key, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(key, v);
  }
  return headers;
};

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
      })
    : null;
  const runner = services.workspaces?.runner ?? false;
  /** Who sent the request, and the client's address, set here so a client cannot pick its own rate-limit key. */
  const arrive = (req: http.IncomingMessage): Arrival => {
    const arrival = forwarding?.arrival(req) ?? { kind: "direct" };
    req.headers[CLIENT_IP_HEADER] =
      arrival.kind === "forwarded" ? arrival.clientIp : (req.socket.remoteAddress ?? "unknown");
    return arrival;
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

  const server = http.createServer((req, res) => {
    const url = req.url ?? "/";
    let arrival: Arrival = { kind: "direct" };
    if (url.startsWith("/api/")) {
      arrival = arrive(req);
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
    if (url.startsWith(FILE_TRANSFER_PREFIX))
      return void handleFileTransfer(services, req, res, () => createContext(services, headersOf(req)));
    // The pages' frame-src names the previews' origins (proxy.ts): the Preview panel frames them.
    req.headers[PREVIEW_FRAMES_HEADER] = services.previews.frameSource() ?? "";
    if (staticAssets && url.startsWith(STATIC_PREFIX)) return staticAssets(req, res, () => void handleNext(req, res));
    if (publicFiles) return publicFiles(req, res, () => void handleNext(req, res));
    void handleNext(req, res);
  });

  const trpcWss = new WebSocketServer({ noServer: true, maxPayload: 1 << 20 });
  const wsHandler = applyWSSHandler({
    wss: trpcWss,
    router: appRouter,
    createContext: ({ req, res, info }) =>
      createConnectionContext(services, headersOf(req), info.connectionParams, (cleanup) => res.once("close", cleanup)),
    keepAlive: { enabled: true, pingMs: 30_000, pongWaitMs: 5_000 },
  });
  const terminalWss = new WebSocketServer({ noServer: true, maxPayload: 1 << 20 });
  const languageWss = new WebSocketServer({ noServer: true, maxPayload: MAX_LANGUAGE_FRAME_BYTES });
  const liveWss = new WebSocketServer({ noServer: true, maxPayload: MAX_LIVE_FRAME_BYTES });

  server.on("upgrade", (req, socket, head) => {
    const url = new URL(req.url ?? "/", "http://local");
    const refuse = (status: number, message: string) => {
      socket.end(`HTTP/1.1 ${status} ${message}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    };
    let arrival: Arrival = { kind: "direct" };
    if (
      url.pathname === "/api/trpc/ws" ||
      url.pathname === TERMINAL_WS_PATH ||
      url.pathname === LANGUAGE_WS_PATH ||
      url.pathname === LIVE_DOC_WS_PATH
    ) {
      if (!originAllowed(req, config.publicUrl)) return refuse(403, "Forbidden");
      arrival = arrive(req);
      if (refused(arrival)) return refuse(403, "Forbidden");
    }
    const forwardTo = routed(arrival);
    const owner = forwardTo ? { forwarding: forwardTo, arrival } : null;
    if (url.pathname === "/api/trpc/ws") {
      trpcWss.handleUpgrade(req, socket, head, (ws) => {
        coalesceWritesPerTask(socket);
        trpcWss.emit("connection", ws, req);
      });
      return;
    }
    if (url.pathname === TERMINAL_WS_PATH) {
      void upgradeTerminal(services, owner, terminalWss, req, socket, head, url).catch((error) => {
        console.error("terminal upgrade:", error);
        refuse(500, "Internal Server Error");
      });
      return;
    }
    if (url.pathname === LANGUAGE_WS_PATH) {
      void upgradeLanguage(services, owner, languageWss, req, socket, head, url).catch((error) => {
        console.error("language upgrade:", error);
        refuse(500, "Internal Server Error");
      });
      return;
    }
    if (url.pathname === LIVE_DOC_WS_PATH) {
      void upgradeLiveDoc(services, owner, liveWss, req, socket, head, url).catch((error) => {
        console.error("live document upgrade:", error);
        refuse(500, "Internal Server Error");
      });
      return;
    }
    if (nextUpgrade) return void nextUpgrade(req, socket, head);
    socket.destroy();
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  const host = config.host.includes(":") ? `[${config.host}]` : config.host;
  const listenUrl = `http://${host === "0.0.0.0" ? "localhost" : host}:${port}`;
  services.workspaces?.host.start(config.instanceUrl ?? peerUrl(config.host, port, listenUrl));
  const previewServer = await listenPreviews(services);

  if (!ready) {
    await warmUp(listenUrl);
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
      // Both stop listening at once, right after their connections were cut: awaiting one first
      // let the other take new connections that nothing closed, and shutdown never got past it
      // (cluster.test: a stopped instance kept its workspace leases).
      const closed = (s: http.Server) => new Promise<void>((resolve) => s.close(() => resolve()));
      await Promise.all([closed(previewServer), closed(server)]);
      await nextApp?.close?.();
    },
  };
}

/**
 * The previews' own server (server/preview): a port of its own, so a preview's origin is never
 * the IDE's. It connects to a port inside the project's workspace network; a server without
 * workspace networks (no bubblewrap, or not root) serves no previews, since its commands run in
 * the host's network, where a port could be anything of the host's.
 */
export async function listenPreviews(services: Services): Promise<http.Server> {
  const { previews, config } = services;
  const handlers = createPreviewHandlers({
    access: previews.access,
    domain: previews.domain,
    secure: previews.secure,
    admits: services.previewGate.admits,
    link: services.previewGate.link,
    onLinkRevoked: services.previewGate.onLinkRevoked,
    connect: async ({ projectId, port }) => {
      const networks = services.sandbox.networks;
      if (!networks) throw new Error("this server gives workspaces no network of their own");
      return networks.connect((await services.files.open(projectId)).root, port);
    },
  });
  const server = http.createServer((req, res) =>
    handlers.request(req, res).catch((error: unknown) => {
      console.error("preview:", error);
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    }),
  );
  server.on("upgrade", (req, socket, head) => void handlers.upgrade(req, socket, head).catch(() => socket.destroy()));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(config.preview.port, config.host, () => resolve());
  });
  const address = server.address();
  previews.listening(typeof address === "object" && address ? address.port : config.preview.port);
  return server;
}

type ProjectSocketCaller = {
  caller: Context;
  user: NonNullable<Context["user"]>;
  found: Awaited<ReturnType<typeof authorizeProject>>;
};

/**
 * A project's socket opens only for a signed-in member with read rights: otherwise the upgrade is
 * answered with 401 or 404 (a project the caller may not see is not found) and null comes back.
 */
async function projectSocketCaller(
  services: Services,
  req: http.IncomingMessage,
  socket: Duplex,
  url: URL,
): Promise<ProjectSocketCaller | null> {
  const caller = await createContext(services, headersOf(req));
  const user = caller.user;
  if (!user) {
    refuseUpgrade(socket, 401, "Unauthorized");
    return null;
  }
  const projectId = url.searchParams.get("projectId") ?? "";
  const found = /^[0-9a-f-]{36}$/i.test(projectId)
    ? await authorizeProject(caller, projectId, "read").catch(() => null)
    : null;
  if (!found) {
    refuseUpgrade(socket, 404, "Not Found");
    return null;
  }
  return { caller, user, found };
}

function refuseUpgrade(socket: Duplex, status: number, message: string) {
  socket.end(`HTTP/1.1 ${status} ${message}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

// Every terminal socket is authenticated and checked against the project before it opens.
async function upgradeTerminal(
  services: Services,
  /** Set when the socket may still go to the project's holder. */
  route: { forwarding: WorkspaceForwarding; arrival: Arrival } | null,
  wss: WebSocketServer,
  req: http.IncomingMessage,
  socket: Duplex,
  head: Buffer,
  url: URL,
) {
  const allowed = await projectSocketCaller(services, req, socket, url);
  if (!allowed) return;
  const { caller, user, found } = allowed;
  if (route && (await route.forwarding.forwardUpgrade(req, socket, head, found.project.id, route.arrival))) return;
  const terminal = services.terminals.get(found.project.id, url.searchParams.get("terminalId") ?? "");
  if (!terminal) return refuseUpgrade(socket, 404, "Not Found");
  // Asked per message: the owner may grant or take back input while others are connected, and
  // the caller's role is read again whenever an access change concerns them or the project.
  let role = found.role;
  const canWrite = () => mayTypeInTerminal(role, user.id, terminal);
  wss.handleUpgrade(req, socket, head, (ws) => {
    followAccess(services, caller, found.project.id, ws, (now) => (role = now));
    services.terminals.attach(terminal, ws, { canWrite });
  });
}

/**
 * Keeps an open project socket's role true: when an access change concerns its person or project,
 * the role is read again (nothing is written meanwhile), and the socket is closed when access ended.
 */
function followAccess(
  services: Services,
  caller: Context,
  projectId: string,
  ws: WebSocket,
  setRole: (role: ProjectRole) => void,
) {
  const ended = () => ws.close(TerminalCloseCode.accessEnded, "Your access to this project ended.");
  const recheck = async () => {
    const user = await caller.currentUser!();
    const still = user ? await authorizeProject({ ...caller, user }, projectId, "read").catch(() => null) : null;
    if (still) setRole(still.role);
    else ended();
  };
  const stop = services.accessChanges.subscribe({ userId: caller.user?.id, projectId }, () => {
    setRole("viewer");
    recheck().catch(ended);
  });
  ws.once("close", stop);
}

// A language socket is checked like a terminal's: signed in, a member of the project (read rights
// to use the server; edit rights to send the editor's unsaved text), and a registered server.
async function upgradeLanguage(
  services: Services,
  /** Set when the socket may still go to the project's holder. */
  route: { forwarding: WorkspaceForwarding; arrival: Arrival } | null,
  wss: WebSocketServer,
  req: http.IncomingMessage,
  socket: Duplex,
  head: Buffer,
  url: URL,
) {
  const allowed = await projectSocketCaller(services, req, socket, url);
  if (!allowed) return;
  const { caller, found } = allowed;
  if (route && (await route.forwarding.forwardUpgrade(req, socket, head, found.project.id, route.arrival))) return;
  const spec = specForServer(url.searchParams.get("server") ?? "");
  if (!spec) return refuseUpgrade(socket, 404, "Not Found");
  // `tree`: a session's worktree of this project gets language servers of its own (lib/trees.ts).
  const named = treeNameSchema.safeParse(url.searchParams.get("tree") ?? MAIN_TREE);
  const tree = named.success ? await services.trees.resolve(found.project.id, treeIdOf(named.data)) : null;
  if (!tree) return refuseUpgrade(socket, 404, "Not Found");
  const workspace = await services.files.openTree(tree);
  const hub = services.language.hub(treeKey(tree), workspace, spec.id);
  let role = found.role;
  const canWrite = () => WRITE_ROLES.includes(role);
  wss.handleUpgrade(req, socket, head, (ws) => {
    followAccess(services, caller, found.project.id, ws, (now) => (role = now));
    handleLanguageSocket(ws, hub, { root: workspace.root, canWrite });
  });
}

/**
 * A live document socket is checked like a language socket: signed in, a member with read rights
 * (viewers watch; members and owners write, asked again for every edit), forwarded to the
 * project's holder in a cluster. The path is resolved by the server's workspace; a file that is
 * not shared live is told so in the close reason, and the editor opens it the old way.
 */
async function upgradeLiveDoc(
  services: Services,
  /** Set when the socket may still go to the project's holder. */
  route: { forwarding: WorkspaceForwarding; arrival: Arrival } | null,
  wss: WebSocketServer,
  req: http.IncomingMessage,
  socket: Duplex,
  head: Buffer,
  url: URL,
) {
  if (url.searchParams.has("share")) return upgradeLinkedLiveDoc(services, route, wss, req, socket, head, url);
  const allowed = await projectSocketCaller(services, req, socket, url);
  if (!allowed) return;
  const { caller, user, found } = allowed;
  if (route && (await route.forwarding.forwardUpgrade(req, socket, head, found.project.id, route.arrival))) return;
  const projectId = found.project.id;
  const workspace = await services.files.open(projectId);
  const opened = await services.liveDocs
    .open(projectId, workspace, url.searchParams.get("path") ?? "")
    .catch((error: unknown) => {
      if (error instanceof NotLiveError || isWorkspaceError(error)) return { refusal: error.message };
      throw error;
    });
  let role = found.role;
  const writer = WRITE_ROLES.includes(role);
  const canWrite = () => WRITE_ROLES.includes(role);
  wss.handleUpgrade(req, socket, head, (ws) => {
    if ("refusal" in opened) return ws.close(LiveDocCloseCode.notLive, opened.refusal.slice(0, 120));
    const stopClosed = services.liveDocs.onClosed(projectId, () =>
      ws.close(LiveDocCloseCode.reconnect, "The document moved; reconnecting."),
    );
    followAccess(services, caller, projectId, ws, (now) => {
      role = now;
      // A writer downgraded reconnects once its new role is settled, so its editor turns read-only.
      if (writer && !WRITE_ROLES.includes(now))
        setTimeout(() => {
          if (!canWrite()) ws.close(LiveDocCloseCode.reconnect, "Your role changed; reconnecting.");
        }, 500).unref();
    });
    // The explorer shows who has which file open, across instances (the presence bus).
    const leaveRoom = services.presence.join(openFilesRoom(projectId), {
      key: `user:${user.id}\u0000${opened.doc.path}`,
      userId: user.id,
      name: user.name,
      guest: false,
      place: opened.doc.path,
    });
    serveLiveDoc(ws, opened.doc, {
      who: { name: user.name, color: colorOf(user.id) },
      canWrite,
      onClose: () => {
        leaveRoom();
        stopClosed();
        opened.leave();
      },
    });
  });
}

/**
 * A live document opened through a share link (`share` = its token, `sessionId`, `path`): only a
 * file the session touched (judged by the file the name leads to, as share.read does), always
 * read-only whatever the socket sends, and closed the moment the link is revoked or expires.
 */
async function upgradeLinkedLiveDoc(
  services: Services,
  route: { forwarding: WorkspaceForwarding; arrival: Arrival } | null,
  wss: WebSocketServer,
  req: http.IncomingMessage,
  socket: Duplex,
  head: Buffer,
  url: URL,
) {
  const caller = { ...(await createContext(services, headersOf(req))), shareToken: url.searchParams.get("share") };
  const sessionId = url.searchParams.get("sessionId") ?? "";
  const access = /^[0-9a-f-]{36}$/i.test(sessionId)
    ? await authorizeSession(caller, sessionId, "view").catch(() => null)
    : null;
  const link = access?.link;
  if (!access || !link) return refuseUpgrade(socket, 404, "Not Found");
  const projectId = access.project.id;
  if (route && (await route.forwarding.forwardUpgrade(req, socket, head, projectId, route.arrival))) return;
  const file = url.searchParams.get("path") ?? "";
  const touched = await touchedFiles(services.db, access.session.id);
  const workspace = await services.files.open(projectId);
  const opened = touched.includes(file)
    ? await services.liveDocs
        .open(projectId, workspace, file, touchedOnly(touched, workspace.root, file))
        .catch((error: unknown) => {
          if (error instanceof NotLiveError || isWorkspaceError(error)) return { refusal: error.message };
          throw error;
        })
    : { refusal: "This link opens only the files its session touched." };
  wss.handleUpgrade(req, socket, head, (ws) => {
    if ("refusal" in opened) return ws.close(LiveDocCloseCode.notLive, opened.refusal.slice(0, 120));
    const end = (reason: string) => ws.close(LiveDocCloseCode.accessEnded, reason);
    const stopRevoked = services.linkRevocations.subscribe(link.id, () => end("This share link was revoked."));
    const expiry = setTimeout(
      () => end("This share link has expired."),
      Math.min(Math.max(0, link.expiresAt.getTime() - Date.now()), 2 ** 31 - 1),
    );
    const stopClosed = services.liveDocs.onClosed(projectId, () =>
      ws.close(LiveDocCloseCode.reconnect, "The document moved; reconnecting."),
    );
    const user = caller.user;
    serveLiveDoc(ws, opened.doc, {
      who: user ? { name: user.name, color: colorOf(user.id) } : { name: "Guest", color: colorOf(`link:${link.id}`) },
      canWrite: () => false,
      onClose: () => {
        stopRevoked();
        clearTimeout(expiry);
        stopClosed();
        opened.leave();
      },
    });
  });
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
