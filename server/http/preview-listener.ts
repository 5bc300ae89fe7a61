import type http from "node:http";
import type net from "node:net";
import type { Duplex } from "node:stream";
import type { Services } from "@/server/api/context";
import { CLIENT_IP_HEADER } from "@/server/auth/request-origin";
import type { Arrival, WorkspaceForwarding } from "@/server/cluster/workspace-forwarding";
import { previewTarget } from "@/server/preview/preview-host";
import { frontedPreviews } from "@/server/preview/preview-front";
import { createPreviewHandlers } from "@/server/preview/preview-server";

/** How a cluster sends previews on: the forwarding, and whether a request of this arrival may still go to the holder. */
export type PreviewRoute = { forwarding: WorkspaceForwarding; routed(arrival: Arrival): boolean };

export type PreviewListener = {
  /** Node's http server of the previews (what the native front hands it, and peers' requests). */
  server: http.Server;
  /** What listens on the previews' port: the native front (preview-front.ts), before `server`. */
  listener: net.Server;
  /**
   * A request reaching the main port with a peer's signature header, for a preview host: a peer
   * admitted it and sent it here, where the project's workspace runs. True when it was one (then
   * it is served, or refused when the signature is not a peer's); `arrival` is what its signature
   * was found to be (workspace-forwarding.ts).
   */
  fromPeer(req: http.IncomingMessage, res: http.ServerResponse, arrival: Arrival): boolean;
  fromPeerUpgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer, arrival: Arrival): boolean;
  /**
   * Closes the WebSockets it relays (hot reload's) and the connections the front carries: the
   * server's closeAllConnections leaves upgraded sockets alone, and never sees the front's.
   */
  closeSockets(): void;
};

/**
 * The previews' own server (server/preview): a port of its own, so a preview's origin is never
 * the IDE's. It connects to a port inside the project's workspace network; a server without
 * workspace networks (no bubblewrap, or not root) serves no previews, since its commands run in
 * the host's network, where a port could be anything of the host's. In a cluster, a request for a
 * project whose workspace another instance holds is admitted here, then forwarded to that
 * instance's main port, signed (server/cluster/workspace-forwarding.ts), which serves it with its
 * own preview server and admits it again.
 */
export async function listenPreviews(services: Services, route?: PreviewRoute): Promise<PreviewListener> {
  const { previews, config } = services;
  /** Who sent a request: a browser on the preview port; a peer on the main port, by its signature. */
  const arrivals = new WeakMap<http.IncomingMessage, Arrival>();
  const onward = (req: http.IncomingMessage): Arrival | null => {
    const arrival = arrivals.get(req) ?? { kind: "direct" };
    if (!route?.routed(arrival)) return null;
    // Set here, so a browser cannot pick the address its peer is told.
    if (arrival.kind === "direct") req.headers[CLIENT_IP_HEADER] = req.socket.remoteAddress ?? "unknown";
    return arrival;
  };
  const handlers = createPreviewHandlers({
    access: previews.access,
    domain: previews.domain,
    secure: previews.secure,
    admits: services.previewGate.admits,
    spendEntry: services.previewGate.spendEntry,
    link: services.previewGate.link,
    onAccessEnd: services.previewGate.onAccessEnd,
    connect: async ({ projectId, port }) => {
      const networks = services.sandbox.networks;
      if (!networks) throw new Error("this server gives workspaces no network of their own");
      return networks.connect((await services.files.open(projectId)).root, port);
    },
    elsewhere: route && {
      here: (target) => route.forwarding.previewHere(target.projectId),
      async request(target, req, res) {
        const arrival = onward(req);
        return !!arrival && route.forwarding.forwardPreview(req, res, target.projectId, arrival);
      },
      async upgrade(target, req, socket, head) {
        const arrival = onward(req);
        return !!arrival && route.forwarding.forwardPreviewUpgrade(req, socket, head, target.projectId, arrival);
      },
    },
  });
  const request = (req: http.IncomingMessage, res: http.ServerResponse) =>
    handlers.request(req, res).catch((error: unknown) => {
      console.error("preview:", error);
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    });
  const upgrade = (req: http.IncomingMessage, socket: Duplex, head: Buffer) =>
    void handlers.upgrade(req, socket, head).catch(() => socket.destroy());
  const { server, front } = frontedPreviews({ request, upgrade, admitFront: handlers.admitFront });
  const listener = front.server;
  await new Promise<void>((resolve, reject) => {
    listener.once("error", reject);
    listener.listen(config.preview.port, config.host, () => resolve());
  });
  const address = listener.address();
  previews.listening(typeof address === "object" && address ? address.port : config.preview.port);

  /** Whether the request is a peer's preview request (signed, or forged). */
  const peer = (req: http.IncomingMessage, arrival: Arrival) =>
    arrival.kind !== "direct" && previewTarget(req.headers.host, previews.domain) !== null;
  return {
    server,
    listener,
    closeSockets() {
      handlers.closeSockets();
      front.closeAll();
    },
    fromPeer(req, res, arrival) {
      if (!peer(req, arrival)) return false;
      if (arrival.kind === "forged")
        res.writeHead(403, { "content-type": "text/plain" }).end("Forwarded request refused.");
      else {
        arrivals.set(req, arrival);
        void request(req, res);
      }
      return true;
    },
    fromPeerUpgrade(req, socket, head, arrival) {
      if (!peer(req, arrival)) return false;
      if (arrival.kind === "forged")
        socket.end("HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
      else {
        arrivals.set(req, arrival);
        upgrade(req, socket, head);
      }
      return true;
    },
  };
}
