import { randomBytes } from "node:crypto";
import { chmodSync, closeSync, rmSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import type { NetworkPolicy } from "@/lib/egress-policy";
import { admitHost, INTERNAL_HOSTS_HINT, Refused, type Resolver } from "./admit-host";
import { fdRelay, fdRelayProblem, socketFd, type FdRelay } from "./fd-relay";
import { chunkEncoder, originRequest } from "./origin-request";
import { PIPE_BUFFER_BYTES, readInto } from "./pipe-buffers";
import { watchTls, type TlsWatch } from "./tls-watch";

// The egress proxy: HTTP CONNECT (https, git over https) and plain HTTP forwarding, one per
// sandboxed process. The sandbox keeps its own network namespace with only loopback: its bridge
// listens on 127.0.0.1 there and hands that listening socket to the server over a Unix socket
// bound into the sandbox (fd-relay.ts), so the server accepts the sandbox's connections itself
// and each byte of a download is relayed once, here, not a second time by a relay inside.
//
// Why node:http rather than a library: proxy-chain (apify) is well kept, but it listens on TCP
// ports only, is built around chaining to upstream proxies, and resolves names itself, so the
// address check after DNS (what stops an allowed name that points at 169.254.169.254) would
// have to be bolted on around it. @anthropic-ai/sandbox-runtime brings its own bubblewrap
// profile that reads the whole host by default, which is what this server must not do. What
// is left is ~200 lines on node:http and node:net, where every connection's host check,
// address check and byte count is in plain sight.

export type EgressConnection = {
  host: string;
  port: number;
  allowed: boolean;
  /**
   * Why a connection was refused (not on the list, or a private address), or, for one allowed,
   * why it failed (its TLS handshake, tls-watch.ts); null when it went through.
   */
  reason: string | null;
  bytesIn: number;
  bytesOut: number;
};

export type EgressListenerOptions = {
  socketPath: string;
  /** The project's policy, read for each connection so a change applies at once. */
  policy(): Promise<NetworkPolicy>;
  onlyHosts?: readonly string[];
  /** Names mapped to fixed addresses that may be loopback (TANDEM_EGRESS_TEST_HOSTS, tests only). */
  testHosts?: ReadonlyMap<string, string>;
  resolve?: Resolver;
  record(connection: EgressConnection): void;
};

/** A refused connection: by the project's allow-list, or by its address (`address` set) when the host is internal. */
export type EgressRefusal = { host: string; reason: string; address?: string };

export type EgressListener = {
  socketPath: string;
  /** The hosts refused so far, each once, in order. */
  denials(): string[];
  /** The same refusals with their reasons, each host once, in order. */
  refusals(): EgressRefusal[];
  /**
   * One process among several sharing the listener (a workspace's network, workspace-network.ts):
   * its connections carry `token` as their proxy credentials, so they are logged as its own and
   * its refusals are its own. Connections without a known token go to the listener's `record`.
   */
  client(record: (connection: EgressConnection) => void): EgressClient;
  close(): Promise<void>;
};

export type EgressClient = {
  /** Sent as the proxy URL's password (`http://tandem:<token>@127.0.0.1:3128`). */
  token: string;
  denials(): string[];
  refusals(): EgressRefusal[];
  release(): void;
};

type ClientRecord = { denied: EgressRefusal[]; record(connection: EgressConnection): void };

/** The client a request's `Proxy-Authorization: Basic tandem:<token>` names, if any. */
function clientToken(req: http.IncomingMessage): string | null {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)$/.exec(req.headers["proxy-authorization"] ?? "");
  if (!match) return null;
  const [user, token] = Buffer.from(match[1]!, "base64").toString("utf8").split(":");
  return user === "tandem" && token ? token : null;
}

/** How long a sandbox's bridge has to hand over its listener once it connected. */
const HANDOFF_TIMEOUT_MS = 10_000;

function unavailable(): never {
  throw new Error(`The egress proxy cannot run: ${fdRelayProblem()}.`);
}

/** A Host header of `req` that names another host than `target`, or another port (as the client wrote it), or null. */
function hostHeaderMismatch(req: http.IncomingMessage, target: URL): string | null {
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.toLowerCase() !== "host") continue;
    const value = raw[i + 1]!;
    let host: string;
    try {
      const parsed = new URL(`http://${value}`);
      if (parsed.username || parsed.password || parsed.pathname !== "/" || parsed.search || parsed.hash)
        throw new Error();
      host = parsed.host;
    } catch {
      return value;
    }
    // A Host without its port is how many clients write it; the name is what picks a virtual host.
    if (host !== target.host && host !== target.hostname) return value;
  }
  return null;
}

export function openEgressListener(options: EgressListenerOptions): EgressListener {
  const denied: EgressRefusal[] = [];
  const clients = new Map<string, ClientRecord>();
  const clientOf = (req: http.IncomingMessage) => {
    const token = clientToken(req);
    return (token && clients.get(token)) || undefined;
  };
  const tunnels = new Set<net.Socket>();
  const relayModule: FdRelay = fdRelay() ?? unavailable();

  /** The address to connect to, or Refused with the reason. */
  const admit = async (host: string) =>
    admitHost(host, await options.policy(), {
      onlyHosts: options.onlyHosts,
      testHosts: options.testHosts,
      resolve: options.resolve,
    });

  function refuse(host: string, port: number, refused: Refused, who: ClientRecord | undefined) {
    for (const list of who ? [denied, who.denied] : [denied])
      if (!list.some((d) => d.host === host))
        list.push({ host, reason: refused.message, ...(refused.address ? { address: refused.address } : {}) });
    (who?.record ?? options.record)({ host, port, allowed: false, reason: refused.message, bytesIn: 0, bytesOut: 0 });
  }

  const message = (host: string, refused: Refused) =>
    `Tandem's egress proxy refused ${host}: ${refused.message}. ${refused.address ? INTERNAL_HOSTS_HINT : "A project admin can allow it in the project settings (Network)"}.\n`;

  /**
   * Carries the origin's bytes to the client as they come, until either side closes, then logs
   * the connection with its byte counts: the CONNECT tunnel and plain HTTP alike. `unreachable`
   * answers the client when the origin cannot be reached at all.
   */
  function relay(
    client: net.Socket,
    upstream: net.Socket,
    host: string,
    port: number,
    unreachable: (error: Error) => void,
    who: ClientRecord | undefined,
    tls?: TlsWatch,
  ) {
    tunnels.add(client).add(upstream);
    let connected = false;
    upstream.once("connect", () => (connected = true));
    upstream.once("end", () => client.end());
    let recorded = false;
    const end = () => {
      // Before the origin answered, the client is left to `unreachable`'s answer.
      if (connected) client.destroy();
      upstream.destroy();
      tunnels.delete(client);
      tunnels.delete(upstream);
      if (recorded) return;
      recorded = true;
      (who?.record ?? options.record)({
        host,
        port,
        allowed: true,
        reason: tls?.failure() ?? null,
        bytesIn: upstream.bytesRead,
        bytesOut: upstream.bytesWritten,
      });
    };
    upstream.on("error", (error) => {
      if (!connected) unreachable(error);
      end();
    });
    // What is still queued for the sandbox goes out before the client's connection closes: a
    // server that sends its last bytes and hangs up must not lose them.
    upstream.on("close", () =>
      !connected || client.writableFinished || client.destroyed ? end() : client.end().once("finish", end),
    );
    client.on("close", end);
  }

  /** Client connections that carried a request already: each carries one (origin-request.ts). */
  const served = new WeakSet<net.Socket>();

  const server = http.createServer({ highWaterMark: PIPE_BUFFER_BYTES }, async (req, res) => {
    const client = req.socket;
    // A second request on a connection (pipelined, or sent despite `Connection: close`) is never
    // forwarded: it would otherwise ride on the first one's host check. The connection closes
    // once the first answer is through, and the client asks again on a new one.
    if (served.has(client)) return void req.resume();
    served.add(client);
    let target: URL;
    try {
      target = new URL(req.url ?? "");
      if (target.protocol !== "http:") throw new Error();
    } catch {
      res
        .writeHead(400, { "content-type": "text/plain", connection: "close" })
        .end("This is a proxy: send absolute http:// URLs, or CONNECT for https.\n");
      return;
    }
    const port = Number(target.port || 80);
    const who = clientOf(req);
    // The policy admits the host of the absolute URL, and that host is what the origin gets: a
    // different Host header would reach another virtual host behind the admitted address.
    const mismatch = hostHeaderMismatch(req, target);
    if (mismatch !== null) {
      (who?.record ?? options.record)({
        host: target.hostname,
        port,
        allowed: false,
        reason: `its Host header (${mismatch}) names another host than its URL`,
        bytesIn: 0,
        bytesOut: 0,
      });
      res
        .writeHead(400, { "content-type": "text/plain", connection: "close" })
        .end(
          `Tandem's egress proxy refused this request: its Host header (${mismatch}) does not match its URL's host (${target.host}). Send the request for the host in the URL.\n`,
        );
      return;
    }
    let address: string;
    try {
      address = await admit(target.hostname);
    } catch (error) {
      if (!(error instanceof Refused)) throw error;
      refuse(target.hostname, port, error, who);
      res.writeHead(403, { "content-type": "text/plain", connection: "close" }).end(message(target.hostname, error));
      return;
    }
    const { head, chunked } = originRequest(req, target);
    // Connect to the checked address, so a second DNS answer cannot differ (rebinding). The
    // answer is not parsed: it goes to the client as raw bytes, as in a tunnel, and ends when
    // the origin closes the connection, which `Connection: close` asked it to do.
    const upstream: net.Socket = net.connect({ host: address, port, onread: readInto(client, () => upstream) });
    relay(
      client,
      upstream,
      target.hostname,
      port,
      (error) =>
        res
          .writeHead(502, { "content-type": "text/plain", connection: "close" })
          .end(`Tandem's egress proxy could not reach ${target.hostname}: ${error.message}\n`),
      who,
    );
    upstream.write(head);
    (chunked ? req.pipe(chunkEncoder()) : req).pipe(upstream, { end: false });
  });

  server.on("connect", async (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    client.on("error", () => client.destroy());
    const match = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(req.url ?? "");
    if (!match) {
      client.end("HTTP/1.1 400 Bad Request\r\n\r\n");
      return;
    }
    const host = match[1]!.replace(/^\[|\]$/g, "");
    const port = Number(match[2]);
    const who = clientOf(req);
    let address: string;
    try {
      address = await admit(host);
    } catch (error) {
      if (!(error instanceof Refused)) throw error;
      refuse(host, port, error, who);
      const body = message(host, error);
      client.end(
        `HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
      return;
    }
    // Reading starts once connected, after the "200" line is written. The handshake's records
    // are watched, so a TLS failure inside the tunnel is logged with its reason (tls-watch.ts).
    const tls = watchTls();
    const upstream: net.Socket = net.connect({ host: address, port, onread: readInto(client, () => upstream, tls) });
    relay(
      client,
      upstream,
      host,
      port,
      (error) =>
        client.end(`HTTP/1.1 502 Bad Gateway\r\n\r\nTandem's egress proxy could not reach ${host}: ${error.message}\n`),
      who,
      tls,
    );
    upstream.once("connect", () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length) {
        tls.client(head);
        upstream.write(head);
      }
      const watchClient = (chunk: Buffer) => (tls.done ? client.off("data", watchClient) : tls.client(chunk));
      client.on("data", watchClient);
      client.pipe(upstream);
    });
  });

  // The sandbox's bridge connects to the Unix socket once and hands over the listening socket it
  // made inside the sandbox's network namespace (bridge-script.ts); the server accepts the
  // sandbox's connections on it from then on. One listener per network namespace (a workspace's
  // shared one, or an isolated process's own): the bridge connects before anything else runs
  // there, and any later connection is closed unread.
  const listeners = new Set<net.Server>();
  let handedOver = false;
  let closed = false;
  const handoff = net.createServer({ pauseOnConnect: true }, (channel) => {
    if (handedOver) return void channel.destroy();
    handedOver = true;
    relayModule.receiveListener(socketFd(channel), HANDOFF_TIMEOUT_MS, (error, fd) => {
      channel.destroy();
      if (error) return;
      if (closed) return void closeSync(fd);
      const accepting = net.createServer({ highWaterMark: PIPE_BUFFER_BYTES }, (client) =>
        server.emit("connection", client),
      );
      accepting.on("error", () => accepting.close());
      accepting.listen({ fd });
      listeners.add(accepting);
    });
  });

  rmSync(options.socketPath, { force: true });
  // listen() on a path binds synchronously, so the socket exists when this function returns.
  handoff.listen(options.socketPath);
  // The sandbox's unprivileged uid connects to it; only sandboxes it is bound into can see it.
  chmodSync(options.socketPath, 0o666);

  return {
    socketPath: options.socketPath,
    denials: () => denied.map((d) => d.host),
    refusals: () => [...denied],
    client(record) {
      const token = randomBytes(18).toString("base64url");
      const entry: ClientRecord = { denied: [], record };
      clients.set(token, entry);
      return {
        token,
        denials: () => entry.denied.map((d) => d.host),
        refusals: () => [...entry.denied],
        release: () => clients.delete(token),
      };
    },
    close: () =>
      new Promise<void>((resolve) => {
        closed = true;
        handoff.close();
        for (const accepting of listeners) accepting.close();
        server.close(() => resolve());
        server.closeAllConnections();
        for (const socket of tunnels) socket.destroy();
        rmSync(options.socketPath, { force: true });
      }),
  };
}
