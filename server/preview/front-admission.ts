import type net from "node:net";
import type { GrantHolds } from "./grant-holds";
import type { PreviewAccess, PreviewGrant } from "./preview-access";
import { cookiesWithout, PREVIEW_COOKIE } from "./preview-headers";
import { previewTarget, type PreviewTarget, tandemPath } from "./preview-host";
import { POOL_CONNECTIONS } from "./upstream";

// Who the native front (preview-front.ts) may serve a connection's requests for: the first request
// of every browser connection is admitted here, with the same session, grant, hold and checks as
// Node's path (preview-server.ts), and the front is given a connection into the workspace of its
// own for it and the requests like it that follow.

/** A request's head as the native front read it (preview-front.ts): its header names and values in pairs. */
export type FrontHead = { method: string; target: string; version: string; headers: string[] };

/** What the native front serves a connection's plain requests with, once admitted (preview-front.ts). */
export type FrontAdmission = {
  /** The connection into the workspace, its own (never another grant's). */
  upstream: net.Socket;
  /** The Host and session cookie its requests must carry, the preview's origin, and the dev server's Host. */
  host: string;
  cookie: string;
  origin: string;
  local: string;
  /** When the session expires (ms). */
  exp: number;
  /** Lets go of the admission's hold on the grant (the connection ended, or another admission replaced it). */
  release(): void;
};

/** What the admission needs of the preview server's dependencies (preview-server.ts's PreviewServerDeps). */
type FrontDeps = {
  access: PreviewAccess;
  domain: string;
  secure: boolean;
  connect(target: PreviewTarget): Promise<net.Socket>;
  elsewhere?: { here(target: PreviewTarget): Promise<boolean> };
};

/**
 * Admits a request the native front read, as request() would, when the front can serve it itself
 * from then on: a GET or HEAD without a body, on a preview host, with a live session, not Tandem's
 * own paths, here rather than on another instance (a page for the Preview panel's frame takes the
 * frame's script there as here). `end` closes the connection when the grant's access ends. Null: Node serves
 * it (the front hands the connection back), which answers every refusal.
 */
export function createFrontAdmission(
  deps: FrontDeps,
  admit: GrantHolds["admit"],
  poolKey: (grant: PreviewGrant) => string,
) {
  const frontConnections = new Map<string, number>();
  return async function admitFront(ask: FrontHead, end: () => void): Promise<FrontAdmission | null> {
    if (ask.version !== "HTTP/1.1" || (ask.method !== "GET" && ask.method !== "HEAD")) return null;
    const values = (name: string) => {
      const found: string[] = [];
      for (let i = 0; i < ask.headers.length; i += 2)
        if (ask.headers[i]!.toLowerCase() === name) found.push(ask.headers[i + 1]!);
      return found;
    };
    const host = values("host");
    const cookie = values("cookie");
    if (host.length !== 1 || cookie.length !== 1 || values("sec-fetch-dest").length > 1) return null;
    if (values("transfer-encoding").length || values("upgrade").length || values("expect").length) return null;
    if (values("content-length").some((length) => length !== "0")) return null;
    if (values("connection").some((value) => /(^|,)\s*upgrade\s*(,|$)/i.test(value))) return null;
    if (!ask.target.startsWith("/") || ask.target.startsWith("//") || ask.target.startsWith("/\\")) return null;
    if (tandemPath(ask.target)) return null;
    const target = previewTarget(host[0], deps.domain);
    if (!target) return null;
    // In a cluster, a port another instance runs is Node's path's to forward.
    if (deps.elsewhere && !(await deps.elsewhere.here(target).catch(() => false))) return null;
    const ours = cookiesWithout(cookie[0], PREVIEW_COOKIE).ours;
    const grant = ours ? deps.access.session(ours, target.projectId, target.port) : null;
    if (!grant || !ours) return null;
    // Each admission holds a connection into the workspace: a session's are bounded as its pool's
    // are (upstream.ts); past that, Node's path serves it over the pool.
    const key = poolKey(grant);
    if ((frontConnections.get(key) ?? 0) >= POOL_CONNECTIONS) return null;
    frontConnections.set(key, (frontConnections.get(key) ?? 0) + 1);
    let counted = true;
    const uncount = () => {
      if (!counted) return;
      counted = false;
      const left = (frontConnections.get(key) ?? 1) - 1;
      if (left) frontConnections.set(key, left);
      else frontConnections.delete(key);
    };
    let gone = false;
    // The front tells of a connection that closes while this is under way (preview-front.ts lets
    // go of what it was given then): nothing to listen to here.
    const admitted = await admit(grant, { on: () => {} }, () => {
      gone = true;
      end();
    });
    const release = () => {
      uncount();
      admitted.release();
    };
    if (!admitted.ok) return null;
    let upstream: net.Socket;
    try {
      upstream = await deps.connect(target);
    } catch {
      release();
      return null;
    }
    if (gone) {
      upstream.destroy();
      release();
      return null;
    }
    return {
      upstream,
      host: host[0]!,
      cookie: ours,
      origin: `${deps.secure ? "https" : "http"}://${host[0]}`,
      local: `localhost:${target.port}`,
      exp: grant.exp,
      release,
    };
  };
}
