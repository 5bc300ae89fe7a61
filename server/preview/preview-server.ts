import type http from "node:http";
import type net from "node:net";
import type { Duplex } from "node:stream";
import { createFrontAdmission } from "./front-admission";
import { createGrantHolds, grantKey } from "./grant-holds";
import { isLocalPath, type PreviewAccess, type PreviewGrant } from "./preview-access";
import { FRAME_SCRIPT, FRAME_SCRIPT_PATH, withFrameScript } from "./frame-script";
import {
  answerHeaders,
  cookiesWithout,
  forwardedHeaders,
  handshakeHead,
  MAX_HANDSHAKE_HEAD,
  PREVIEW_COOKIE,
} from "./preview-headers";
import { previewTarget, type PreviewTarget, tandemPath } from "./preview-host";
import { createSocketPlaces } from "./socket-places";
import { relaySockets, type SocketRelay } from "./socket-relay";
import { createUpstreams, failureOf } from "./upstream";

// The preview proxy: requests to `<port>-<projectId>.<domain>` go to that port in the project's
// workspace network (server/sandbox/workspace-network.ts), over a connection made inside the
// namespace, HTTP, streamed answers and WebSocket upgrades (hot reload) alike. The previewed
// app is hostile (it is the workspace's code): it is served on an origin that is not the IDE's,
// never sees a Tandem cookie (the preview's own session cookie is taken out of every request it
// gets), and a request from another origin (another project's preview) that carries the
// session is refused for anything but a plain GET, and for every WebSocket. Dev servers get the
// Host and Origin they expect (`localhost:<port>`), as if opened on the machine itself. Every
// request and WebSocket of a public link's session ends the moment the link is revoked, and a
// person's the moment the login session it was opened from ends.

export const PREVIEW_ENTER_PATH = "/__tandem/enter";
export const PREVIEW_LINK_PATH = "/__tandem/link";

/** A public link as the proxy needs it (server/db/repositories/preview-ports.ts keeps them). */
export type LivePreviewLink = { id: string; projectId: string; port: number; expiresAt: Date };

export type PreviewServerDeps = {
  access: PreviewAccess;
  domain: string;
  /** Whether the session's cookie must be Secure (the preview is served over https). */
  secure: boolean;
  /**
   * Whether the session may still open its port: the person's role and the port's visibility, and
   * the login (or agent) session it is bound to not ended; or its link still live.
   */
  admits(grant: PreviewGrant): Promise<boolean>;
  /** Spends an entry link where every instance sees it: false when it was used already, on any instance. */
  spendEntry(entry: { nonce: string; exp: number }): Promise<boolean>;
  /** The live public link a token is, for exactly this project's port; null otherwise. */
  link(token: string, target: PreviewTarget): Promise<LivePreviewLink | null>;
  /**
   * Calls `ended` when the grant may no longer open its port (on any instance): its link revoked,
   * the person's role or the port's visibility changed so they may not, the login session it is
   * bound to ended (sign-out, revoked, the account disabled). Returns the function that stops
   * listening.
   */
  onAccessEnd(grant: PreviewGrant, ended: () => void): () => void;
  /** A connection to the port inside the project's workspace network; throws when nothing answers there. */
  connect(target: PreviewTarget): Promise<net.Socket>;
  /**
   * In a cluster: sends an admitted request or WebSocket to the instance whose workspace runs the
   * port (true when it did; that instance admits it again). Absent or false: served here.
   */
  elsewhere?: {
    /** Whether the port's workspace runs on this instance (its requests are served here). */
    here(target: PreviewTarget): Promise<boolean>;
    request(target: PreviewTarget, req: http.IncomingMessage, res: http.ServerResponse): Promise<boolean>;
    upgrade(target: PreviewTarget, req: http.IncomingMessage, socket: Duplex, head: Buffer): Promise<boolean>;
  };
  /** How long a WebSocket's handshake may take, from the connection into the workspace to the app's answer (HANDSHAKE_MS). */
  handshakeMs?: number;
};

/**
 * An app that takes a WebSocket's connection and never answers its handshake (or trickles it)
 * would hold the browser's connection, the one into the workspace and the socket's place for good:
 * the place bounds how many pile up (socket-places.ts), not how long each stays. A dev server
 * answers its hot reload's handshake in milliseconds; 20 s leaves room for one busy compiling.
 */
export const HANDSHAKE_MS = 20_000;

function page(res: http.ServerResponse, status: number, title: string, text: string) {
  const body = `<!doctype html><meta charset="utf-8"><title>${title}</title><body style="font:15px system-ui;margin:15vh auto;max-width:36em;color:#ccc;background:#1e1e1e"><h1 style="font-size:20px">${title}</h1><p>${text}</p>`;
  res.writeHead(status, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" }).end(body);
}

/** Whether the request loads a page into a frame (the IDE's Preview panel), by the browser's own header. */
const framed = (req: http.IncomingMessage) => req.headers["sec-fetch-dest"] === "iframe";

export function createPreviewHandlers(deps: PreviewServerDeps) {
  const originOf = (req: http.IncomingMessage) => `${deps.secure ? "https" : "http"}://${req.headers.host}`;

  const upstreams = createUpstreams();
  const poolKey = (grant: PreviewGrant) => `${grantKey(grant)}\u0000${grant.projectId}\u0000${grant.port}`;
  const { admit } = createGrantHolds({
    admits: deps.admits,
    onAccessEnd: deps.onAccessEnd,
    ended: (grant) => upstreams.drop(poolKey(grant)),
  });

  /**
   * The session cookie. In a frame of the IDE's page the preview is a third party: browsers send
   * it only a cookie partitioned under the IDE's site (SameSite=None, Secure, Partitioned; http
   * counts as secure on *.localhost), which no other site that frames the preview gets. A tab of
   * its own gets a Lax cookie, as any site's.
   */
  const sessionCookie = (req: http.IncomingMessage, value: string, maxAgeMs: number) => {
    const where = framed(req) ? "SameSite=None; Secure; Partitioned" : `SameSite=Lax${deps.secure ? "; Secure" : ""}`;
    return `${PREVIEW_COOKIE}=${value}; Path=/; Max-Age=${Math.floor(maxAgeMs / 1000)}; HttpOnly; ${where}`;
  };

  const grantOf = (req: http.IncomingMessage, target: PreviewTarget): PreviewGrant | null => {
    const cookie = cookiesWithout(req.headers.cookie, PREVIEW_COOKIE).ours;
    return cookie ? deps.access.session(cookie, target.projectId, target.port) : null;
  };

  const admitFront = createFrontAdmission(deps, admit, poolKey);

  const foreignOrigin = (req: http.IncomingMessage) => {
    const origin = req.headers.origin;
    return origin !== undefined && origin !== originOf(req);
  };

  async function enter(req: http.IncomingMessage, res: http.ServerResponse, target: PreviewTarget, url: URL) {
    const token = url.searchParams.get("t") ?? "";
    if (url.pathname === PREVIEW_LINK_PATH) {
      const link = await deps.link(token, target).catch(() => null);
      if (!link) return page(res, 403, "This link does not work", "It has expired or was revoked. Ask for a new one.");
      const cookie = deps.access.linkSession(link);
      res
        .writeHead(302, {
          location: "/",
          "cache-control": "no-store",
          "set-cookie": sessionCookie(req, cookie, link.expiresAt.getTime() - Date.now()),
        })
        .end();
      return;
    }
    const redeemed = deps.access.redeem(token, target.projectId, target.port);
    if (
      !redeemed ||
      !(await deps.spendEntry(redeemed.ticket).catch(() => false)) ||
      !(await deps.admits(redeemed.grant).catch(() => false))
    )
      return page(res, 403, "This link has expired", "Open the preview again from the project's Ports view.");
    res
      .writeHead(302, {
        location: isLocalPath(redeemed.path) ? redeemed.path : "/",
        "cache-control": "no-store",
        "set-cookie": sessionCookie(req, redeemed.cookie, redeemed.grant.exp - Date.now()),
      })
      .end();
  }

  async function request(req: http.IncomingMessage, res: http.ServerResponse) {
    const target = previewTarget(req.headers.host, deps.domain);
    if (!target) return page(res, 404, "No such preview", "This address names no project's port.");
    const url = new URL(req.url ?? "/", "http://preview");
    if (url.pathname === PREVIEW_ENTER_PATH || url.pathname === PREVIEW_LINK_PATH) return enter(req, res, target, url);
    if (url.pathname === FRAME_SCRIPT_PATH) {
      res.writeHead(200, { "content-type": "text/javascript; charset=utf-8", "cache-control": "no-cache" });
      return void res.end(FRAME_SCRIPT);
    }
    if (tandemPath(req.url ?? "/")) return page(res, 404, "No such page", "This path is Tandem's own.");
    const grant = grantOf(req, target);
    const admitted = await admit(grant, res, () => res.destroy());
    if (!admitted.ok || !grant) {
      return page(
        res,
        403,
        "This preview is private",
        "Only the people it is shared with can open it, from the project's Ports view in Tandem.",
      );
    }
    if (foreignOrigin(req) && req.method !== "GET" && req.method !== "HEAD")
      return page(res, 403, "Refused", "A request from another site carried this preview's session.");
    if (deps.elsewhere && (await deps.elsewhere.request(target, req, res))) return;
    const inFrame = framed(req);
    const bodyless = req.headers["content-length"] === undefined && req.headers["transfer-encoding"] === undefined;
    const notHttp = () => page(res, 502, "The server's answer is not valid HTTP", "Tandem cannot pass it on.");
    const abort = upstreams.send(
      poolKey(grant),
      () => deps.connect(target),
      {
        method: req.method ?? "GET",
        path: req.url ?? "/",
        headers: forwardedHeaders(req, originOf(req), target.port, { upgrade: false, plain: inFrame }),
        body: bodyless ? null : req,
      },
      {
        head(answer) {
          const html = inFrame && /^text\/html/i.test(answer.type) && !answer.encoded;
          try {
            res.writeHead(answer.status, answer.statusMessage, answerHeaders(answer.headers, html));
          } catch {
            // What the client parsed but the server will not write (a control character in the
            // reason): thrown here, in a callback of the upstream's, it would end the server.
            res.statusMessage = "";
            notHttp();
            return null;
          }
          // Streamed as it comes (server-sent events, chunked pages): no buffering here. An answer
          // of known length goes out with its first bytes, in one write rather than two.
          if (!answer.sized || html) res.flushHeaders();
          if (!html) return res;
          const script = withFrameScript();
          script.pipe(res);
          return script;
        },
        failed(error, started) {
          if (started || res.headersSent) return void res.destroy();
          const failure = failureOf(error);
          if (failure === "unreachable")
            return page(
              res,
              502,
              `Nothing is listening on port ${target.port}`,
              `The server on port ${target.port} of this workspace stopped, or has not started yet. Start it again (in a terminal, or ask the agent), then reload this page.`,
            );
          if (failure === "not-http") return notHttp();
          page(res, 502, "The server stopped answering", "Reload the page to try again.");
        },
      },
    );
    // The person went away (or their link was revoked) before the answer was through: the
    // upstream request ends too (a finished one went back to the pool).
    res.on("close", () => res.writableFinished || abort());
  }

  /** The WebSockets past their handshake. */
  const relays = new Set<SocketRelay>();
  const places = createSocketPlaces();

  async function upgrade(req: http.IncomingMessage, client: Duplex, head: Buffer) {
    client.on("error", () => client.destroy());
    // Closed once written, whatever the browser does: a client that keeps its half of the
    // connection open would otherwise keep it (and the place it took) for good.
    const refuse = (status: string) =>
      client.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`, () => client.destroy());
    const target = previewTarget(req.headers.host, deps.domain);
    if (!target) return refuse("404 Not Found");
    // A WebSocket is never held to CORS: one from another origin is refused outright.
    if (foreignOrigin(req)) return refuse("403 Forbidden");
    let socket: net.Socket | null = null;
    let relay: SocketRelay | null = null;
    const grant = grantOf(req, target);
    const admitted = await admit(grant, client, () => {
      if (relay) return relay.end();
      client.destroy();
      socket?.destroy();
    });
    if (!admitted.ok || !grant) return refuse("403 Forbidden");
    const place = places.take(grantKey(grant), target.projectId, grant.userId);
    if (!place) return refuse("429 Too Many Requests");
    client.on("close", place);
    if (deps.elsewhere && (await deps.elsewhere.upgrade(target, req, client, head))) return;
    // From here until the answer's head is through: past it, the browser is told and both
    // connections close, which lets go of the place and the hold (their close listeners).
    let late = false;
    const timer = setTimeout(() => {
      late = true;
      socket?.destroy();
      refuse("504 Gateway Timeout");
    }, deps.handshakeMs ?? HANDSHAKE_MS);
    client.on("close", () => clearTimeout(timer));
    try {
      socket = await deps.connect(target);
    } catch {
      clearTimeout(timer);
      return refuse("502 Bad Gateway");
    }
    if (client.destroyed || late) return void socket.destroy();
    // Hot reload's messages are small: neither side holds one back for more (Nagle).
    socket.setNoDelay(true);
    (client as net.Socket).setNoDelay?.(true);
    const headers = forwardedHeaders(req, originOf(req), target.port, { upgrade: true });
    let text = `${req.method} ${req.url} HTTP/1.1\r\n`;
    for (let i = 0; i < headers.length; i += 2) text += `${headers[i]}: ${headers[i + 1]}\r\n`;
    socket.write(`${text}\r\n`);
    if (head.length) socket.write(head);
    const upstream = socket;
    // Until the answer's head is through, either side closing closes the other (past the
    // handshake's time the client is being told so: its answer goes out before it closes).
    const teardown = () => {
      if (!late) client.destroy();
      upstream.destroy();
    };
    upstream.on("error", teardown);
    client.on("close", teardown);
    upstream.on("close", teardown);
    // The answer's head is read whole and passed on without what the app may not set; then bytes
    // flow, relayed with nothing read (socket-relay.ts), and its end releases the admission.
    let answer = Buffer.alloc(0);
    const readHead = (chunk: Buffer) => {
      answer = Buffer.concat([answer, chunk]);
      const end = answer.indexOf("\r\n\r\n");
      if (end < 0) {
        if (answer.length > MAX_HANDSHAKE_HEAD) upstream.destroy();
        return;
      }
      upstream.off("data", readHead);
      clearTimeout(timer);
      const kept = handshakeHead(answer.subarray(0, end).toString("latin1"));
      if (kept === null) return void upstream.destroy();
      upstream.pause();
      client.off("close", teardown).off("close", admitted.release).off("close", place);
      upstream.off("close", teardown).off("error", teardown);
      const open = relaySockets(
        client,
        upstream,
        { toClient: Buffer.concat([Buffer.from(kept, "latin1"), answer.subarray(end)]), toUpstream: Buffer.alloc(0) },
        () => {
          relays.delete(open);
          place();
          admitted.release();
        },
      );
      relay = open;
      relays.add(open);
    };
    upstream.on("data", readHead);
  }

  /** Closes every WebSocket relayed now (the server stops): Node's server no longer holds natively relayed ones. */
  function closeSockets() {
    for (const open of [...relays]) open.end();
  }

  return { request, upgrade, closeSockets, admitFront };
}
