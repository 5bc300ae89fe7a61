import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type http from "node:http";
import { Readable, type Duplex } from "node:stream";
import { createProxyServer } from "http-proxy-3";
import { CLIENT_IP_HEADER } from "@/server/auth/auth";
import type { WorkspaceHost } from "@/server/cluster/workspace-host";
import type { Db } from "@/server/db/client";
import { spendToken } from "@/server/db/repositories/spent-tokens";

// A request for a project's live resources that reaches an instance not holding the project's
// workspace lease is forwarded to the holder: tRPC calls over HTTP, the terminal and language
// WebSocket upgrades, and previews' requests and WebSockets, all proxied by http-proxy-3.
//
// Why forward the request itself rather than call the owner through a per-resource remote API:
// the owner runs the very same router, middleware and socket handlers on the very same cookie, so
// the person's rights are checked again there exactly as for a direct request, every live
// procedure (terminals, language, MCP status) is covered by one mechanism without a second
// serialisation of each, and a WebSocket is proxied byte for byte for its whole life.
//
// The instance that forwards signs the request (HMAC of the server secret over the time, a nonce,
// the method, the Host, the URL, the client's address and the hop count): the owner serves a
// signed request itself instead of forwarding again (a workspace runner passes a web instance's
// request once more, to the runner holding the project), and takes the client's address from it
// for rate limits. A request carrying the header without a valid signature (a client trying to
// pick its address or to be served by a non-owner) is refused. The Host is signed because a
// preview's host names the project and port served. A signature is spent in the database every
// instance shares (spent_token), so one captured on the instances' network, or read from a log,
// is good nowhere once it was served: not again where it was sent, nor at another instance (a
// memory per instance let it be replayed to each of the others within its minute). Spending it
// there rather than binding it to its target holds for workspace runners too, which are reached
// through one address that balances over them, and across a receiver's restart.

export const FORWARDED_HEADER = "x-tandem-forwarded";

/**
 * The tRPC procedures that use a project's in-memory live resources. Deleting a project goes to its
 * holder too, which stops its terminals and MCP connections at once (elsewhere, the holder would
 * notice only at its next heartbeat, when the deleted project's lease is gone). fs.preview answers
 * from the live documents, which only the holder has (on a reload the page's first batch carries
 * it, and goes there whole).
 */
export const LIVE_PROCEDURES: ReadonlySet<string> = new Set([
  "project.delete",
  "fs.preview",
  "terminal.list",
  "terminal.server",
  "terminal.create",
  "terminal.shareInput",
  "terminal.close",
  "ports.list",
  "ports.stop",
  "ports.preview",
  "language.status",
  "language.rename",
  "extensions.status",
  "extensions.reconnect",
  "extensions.rediscover",
  "environment.get",
  "environment.rebuild",
]);

const MAX_AGE_MS = 60_000;
/** How long a project's holder is trusted for its previews' requests without asking the lease again. */
const PREVIEW_OWNER_MS = 2_000;
/** Live procedures take small inputs: a larger body (a batch with a big file write) is not looked into, but served here. */
const MAX_PEEK_BYTES = 1 << 20;

export type Arrival = { kind: "direct" } | { kind: "forwarded"; clientIp: string; hops: number } | { kind: "forged" };

export type WorkspaceForwarding = ReturnType<typeof createWorkspaceForwarding>;

export function createWorkspaceForwarding(options: {
  secret: string;
  host: WorkspaceHost;
  /** Whether the request's caller may read the project, checked here before anything is forwarded. */
  mayRead: (req: http.IncomingMessage, projectId: string) => Promise<boolean>;
  /** Spends a signature's nonce where every instance sees it: true the first time in the cluster (spendOnDatabase). */
  spend: (signature: { nonce: string; exp: number }) => Promise<boolean>;
}) {
  const key = forwardingKey(options.secret);
  const proxy = createProxyServer({ ws: true });
  proxy.on("error", () => {});

  /** The header of the request forwarded one hop further than it came. */
  const sign = (req: http.IncomingMessage, arrival: Arrival) =>
    forwardingHeader(
      key,
      requestOf(req),
      req.headers[CLIENT_IP_HEADER] as string,
      arrival.kind === "forwarded" ? arrival.hops + 1 : 1,
    );

  /**
   * Who sent the request: a client, a peer instance (signed, once in the cluster), or someone
   * forging the header. Only a valid signature reaches the database.
   */
  async function arrival(req: http.IncomingMessage): Promise<Arrival> {
    const header = req.headers[FORWARDED_HEADER];
    if (header === undefined) return { kind: "direct" };
    const [at = "", nonce = "", ip = "", hops = "", signature = ""] = (
      Array.isArray(header) ? header.join(",") : header
    ).split(".");
    const expected = Buffer.from(mac(key, { at, nonce, ip, hops }, requestOf(req)));
    const given = Buffer.from(signature);
    const fresh = Math.abs(Date.now() - Number(at)) <= MAX_AGE_MS;
    if (!fresh || given.length !== expected.length || !timingSafeEqual(given, expected)) return { kind: "forged" };
    if (!(await options.spend({ nonce, exp: Number(at) + MAX_AGE_MS }).catch(() => false))) return { kind: "forged" };
    return { kind: "forwarded", clientIp: Buffer.from(ip, "base64url").toString(), hops: Number(hops) };
  }

  /** The holder's URL when the project's live resources are on another instance the caller may reach; null: serve here. */
  async function remoteOwner(req: http.IncomingMessage, projectId: string): Promise<string | null> {
    if (!(await options.mayRead(req, projectId))) return null;
    const owner = await options.host.owner(projectId);
    return owner.local ? null : owner.url;
  }

  const unavailable = (res: http.ServerResponse) => {
    if (!res.headersSent) res.writeHead(503, { "content-type": "application/json", "retry-after": "2" });
    res.end(
      JSON.stringify({
        error: "The instance holding this project's terminals is not answering; try again in a few seconds.",
      }),
    );
  };

  // A page load is dozens of preview requests: its holder is looked up once in a while, not for
  // each (the lease is claimed in the database). A holder that moves meanwhile answers 503 at most
  // that long.
  /** A socket upgrade proxied to the instance at `target`, signed; a 503 when it does not answer. */
  function upgradeAt(target: string, req: http.IncomingMessage, socket: Duplex, head: Buffer, arrival: Arrival) {
    proxy.ws(req, socket, head, { target, headers: { [FORWARDED_HEADER]: sign(req, arrival) } }, () => {
      socket.end(
        "HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nRetry-After: 2\r\nContent-Length: 0\r\n\r\n",
      );
    });
    return true;
  }

  const previewOwners = new Map<string, { owner: Promise<string | null>; until: number }>();
  function previewOwner(projectId: string): Promise<string | null> {
    const kept = previewOwners.get(projectId);
    if (kept && kept.until > Date.now()) return kept.owner;
    const owner = options.host.owner(projectId).then((found) => (found.local ? null : found.url));
    previewOwners.set(projectId, { owner, until: Date.now() + PREVIEW_OWNER_MS });
    owner.catch(() => previewOwners.delete(projectId));
    if (previewOwners.size > 1000) previewOwners.delete(previewOwners.keys().next().value!);
    return owner;
  }

  return {
    arrival,

    /** Whether the project's previews are served here (its workspace runs on this instance). */
    async previewHere(projectId: string): Promise<boolean> {
      return (await previewOwner(projectId)) === null;
    },

    /**
     * A preview request for `projectId` (server/preview), already admitted by its preview session
     * here: proxied to the holder's main port when it is another instance (true), which serves a
     * signed request with a preview host through its own preview server and admits it again. No
     * Tandem login to check: previews carry none.
     */
    async forwardPreview(
      req: http.IncomingMessage,
      res: http.ServerResponse,
      projectId: string,
      arrival: Arrival,
    ): Promise<boolean> {
      const target = await previewOwner(projectId);
      if (!target) return false;
      proxy.web(req, res, { target, headers: { [FORWARDED_HEADER]: sign(req, arrival) } }, () => {
        if (!res.headersSent) res.writeHead(503, { "content-type": "text/plain", "retry-after": "2" });
        res.end("The instance running this preview is not answering; reload in a few seconds.");
      });
      return true;
    },

    /** A preview's WebSocket (hot reload), admitted here: proxied to the holder when it is another instance (true). */
    async forwardPreviewUpgrade(
      req: http.IncomingMessage,
      socket: Duplex,
      head: Buffer,
      projectId: string,
      arrival: Arrival,
    ): Promise<boolean> {
      const target = await previewOwner(projectId);
      if (!target) return false;
      return upgradeAt(target, req, socket, head, arrival);
    },

    /**
     * A tRPC HTTP request: forwarded when it calls live procedures, all of one project, held by
     * another instance (true: answered). Otherwise it is served here; a body read to find the
     * project is left on `req.body`, where tRPC's adapter takes it.
     */
    async forwardTrpc(
      req: http.IncomingMessage & { body?: string },
      res: http.ServerResponse,
      arrival: Arrival,
    ): Promise<boolean> {
      const url = new URL(req.url ?? "/", "http://local");
      const procedures = decodeURIComponent(url.pathname.slice("/api/trpc/".length)).split(",");
      if (!procedures.some((name) => LIVE_PROCEDURES.has(name))) return false;
      let text = url.searchParams.get("input");
      if (req.method === "POST") {
        const body = await readBody(req);
        req.body = body.toString();
        text = body.length <= MAX_PEEK_BYTES ? req.body : null;
      }
      const projectId = projectOf(procedures, text, url.searchParams.get("batch") === "1");
      const target = projectId ? await remoteOwner(req, projectId) : null;
      if (!target) return false;
      const buffer = req.method === "POST" ? Readable.from([Buffer.from(req.body ?? "")]) : undefined;
      proxy.web(req, res, { target, buffer, headers: { [FORWARDED_HEADER]: sign(req, arrival) } }, () =>
        unavailable(res),
      );
      return true;
    },

    /** A terminal or language socket upgrade for `projectId`: proxied to the holder when it is another instance (true). */
    async forwardUpgrade(
      req: http.IncomingMessage,
      socket: Duplex,
      head: Buffer,
      projectId: string,
      arrival: Arrival,
    ): Promise<boolean> {
      const target = await remoteOwner(req, projectId);
      if (!target) return false;
      return upgradeAt(target, req, socket, head, arrival);
    },

    close: () => proxy.close(),
  };
}

/** The cluster's spending of signatures: in the database its instances share, once. */
export const spendOnDatabase =
  (db: Db) =>
  ({ nonce, exp }: { nonce: string; exp: number }) =>
    spendToken(db, `forwarded:${nonce}`, new Date(exp));

export const forwardingKey = (secret: string) =>
  createHmac("sha256", secret).update("tandem workspace forwarding").digest();

/** What selects what a request is served: its method, its Host (a preview's names the project and port) and its URL. */
export type SignedRequest = { method: string; host: string; url: string };

const requestOf = (req: http.IncomingMessage): SignedRequest => ({
  method: req.method ?? "GET",
  host: req.headers.host ?? "",
  url: req.url ?? "/",
});

const mac = (key: Buffer, signed: { at: string; nonce: string; ip: string; hops: string }, request: SignedRequest) =>
  createHmac("sha256", key)
    .update([signed.at, signed.nonce, signed.ip, signed.hops, request.method, request.host, request.url].join("\n"))
    .digest("base64url");

/** The FORWARDED_HEADER of `request`, from `clientIp`, on its `hops`th forwarding; good for that one request once. */
export function forwardingHeader(key: Buffer, request: SignedRequest, clientIp: string, hops: number): string {
  const signed = {
    at: String(Date.now()),
    nonce: randomBytes(16).toString("base64url"),
    ip: Buffer.from(clientIp).toString("base64url"),
    hops: String(hops),
  };
  return `${signed.at}.${signed.nonce}.${signed.ip}.${signed.hops}.${mac(key, signed, request)}`;
}

/** The whole body, which tRPC's adapter would read anyway (it takes it from `req.body` then). */
function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.once("end", () => resolve(Buffer.concat(chunks)));
    req.once("error", reject);
  });
}

/**
 * The one project every live procedure of the call names (tRPC's JSON input: `{ json: {...} }`,
 * or `{ "0": { json }, "1": ... }` for a batch); null when there is none or more than one, then
 * the call is served where it landed.
 */
function projectOf(procedures: string[], text: string | null, batch: boolean): string | null {
  if (!text) return null;
  let input: unknown;
  try {
    input = JSON.parse(text);
  } catch {
    return null;
  }
  const projects = new Set<unknown>();
  procedures.forEach((name, index) => {
    if (!LIVE_PROCEDURES.has(name)) return;
    const one = batch ? (input as Record<string, unknown> | null)?.[String(index)] : input;
    projects.add((one as { json?: { projectId?: unknown } } | null | undefined)?.json?.projectId);
  });
  const [only] = projects;
  return projects.size === 1 && typeof only === "string" ? only : null;
}
