import { randomBytes } from "node:crypto";
import http from "node:http";
import net from "node:net";
import type { NetworkPolicy } from "@/lib/egress-policy";
import { admitHost, Refused, type AdmitOptions } from "@/server/sandbox/admit-host";
import { chunkEncoder, originRequest } from "@/server/sandbox/origin-request";

// The one way out of the agent's browser: Chromium sends every connection of every context
// (pages, their scripts, redirects, popups, WebSockets, loopback included) through this proxy on
// loopback, each context with credentials of its own, so each connection is judged for the
// session's project: its own previews go to the preview server (which checks the person's
// preview session as for anyone), Tandem itself never, anything else only as the project's
// network policy and the address check allow (admitHost, the egress proxy's own decision),
// connected to the address that was checked. A route in the page (Playwright's context.route)
// would not do: Chromium follows redirects without asking it again.

export type PreviewTarget = { projectId: string; port: number };

export type BrowserGateDeps = {
  /** The project's network policy in force, read for each connection. */
  policy(projectId: string): Promise<NetworkPolicy>;
  /**
   * The project and port a preview host names ("host:port" as in a Host header); "other" for any
   * other host under the previews' domain; null for a host that is not the previews'.
   */
  previewTarget(host: string): PreviewTarget | "other" | null;
  /** Where a connection to a preview host goes (the preview server), or null when previews are not served. */
  previewAddress(hostname: string, port: number): { host: string; port: number } | null;
  /** Tandem's own hosts ("name" or "name:port"): never reached, whatever the policy says. */
  tandemHosts(): readonly string[];
  /** Tests: names resolved to fixed addresses, the resolver. */
  admit?: AdmitOptions;
};

/** A request the gate refused: its host and port, and why. */
export type GateRefusal = { host: string; port: number; reason: string };

export type GateClient = {
  /** The proxy credentials of one browser context. */
  username: string;
  password: string;
  release(): void;
};

export type BrowserGate = {
  /** The proxy's address, `http://127.0.0.1:<port>`. */
  server: string;
  client(projectId: string, refused: (refusal: GateRefusal) => void): GateClient;
  close(): Promise<void>;
};

type Client = { projectId: string; refused(refusal: GateRefusal): void };

const USER = "tandem-browser";

export async function openBrowserGate(deps: BrowserGateDeps): Promise<BrowserGate> {
  const clients = new Map<string, Client>();
  const sockets = new Set<net.Socket>();

  const clientOf = (req: http.IncomingMessage): Client | null => {
    const match = /^Basic\s+([A-Za-z0-9+/=]+)$/.exec(req.headers["proxy-authorization"] ?? "");
    if (!match) return null;
    const text = Buffer.from(match[1]!, "base64").toString("utf8");
    const colon = text.indexOf(":");
    if (text.slice(0, colon) !== USER) return null;
    return clients.get(text.slice(colon + 1)) ?? null;
  };

  /** Where a connection to host:port goes for this client, or Refused with why. */
  async function destination(client: Client, hostname: string, port: number): Promise<{ host: string; port: number }> {
    const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
    const tandem = deps.tandemHosts().map((h) => h.toLowerCase());
    if (tandem.includes(host) || tandem.includes(`${host}:${port}`))
      throw new Refused("it is Tandem itself, which the agent's browser never opens");
    const preview = deps.previewTarget(`${host}:${port}`);
    if (preview === "other") throw new Refused("it is not a preview of this project");
    if (preview) {
      if (preview.projectId !== client.projectId) throw new Refused("it is another project's preview");
      const address = deps.previewAddress(host, port);
      if (!address) throw new Refused("previews are not served on this address");
      return address;
    }
    const address = await admitHost(host, await deps.policy(client.projectId), deps.admit);
    return { host: address, port };
  }

  const refuse = (client: Client, host: string, port: number, error: Refused) => {
    client.refused({ host, port, reason: error.message });
    return `Tandem refused ${host}: ${error.message}.\n`;
  };

  const track = (socket: net.Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => socket.destroy());
  };

  /** Carries bytes both ways until either side closes. */
  const splice = (client: net.Socket, upstream: net.Socket) => {
    track(upstream);
    upstream.pipe(client);
    upstream.on("close", () => client.destroy());
    client.on("close", () => upstream.destroy());
  };

  const served = new WeakSet<net.Socket>();
  const server = http.createServer(async (req, res) => {
    const client = clientOf(req);
    if (!client) {
      res.writeHead(407, { "proxy-authenticate": `Basic realm="Tandem browser"`, connection: "close" }).end();
      return;
    }
    // One request per connection, each judged on its own host (as the egress proxy does).
    if (served.has(req.socket)) return void req.socket.destroy();
    served.add(req.socket);
    let target: URL;
    try {
      target = new URL(req.url ?? "");
      if (target.protocol !== "http:") throw new Error();
    } catch {
      res.writeHead(400, { connection: "close" }).end();
      return;
    }
    const port = Number(target.port || 80);
    let to: { host: string; port: number };
    try {
      to = await destination(client, target.hostname, port);
    } catch (error) {
      if (!(error instanceof Refused)) throw error;
      const body = refuse(client, target.hostname, port, error);
      res.writeHead(403, { "content-type": "text/plain; charset=utf-8", connection: "close" }).end(body);
      return;
    }
    const upstream = net.connect(to);
    upstream.once("error", () => {
      if (!res.headersSent) res.writeHead(502, { connection: "close" }).end(`Nothing answers at ${target.host}.\n`);
    });
    upstream.once("connect", () => {
      const { head, chunked } = originRequest(req, target);
      upstream.write(head);
      (chunked ? req.pipe(chunkEncoder()) : req).pipe(upstream, { end: false });
      splice(req.socket, upstream);
    });
  });
  server.on("connection", track);

  server.on("connect", async (req: http.IncomingMessage, socket: net.Socket, head: Buffer) => {
    socket.on("error", () => socket.destroy());
    const client = clientOf(req);
    if (!client) {
      socket.end(
        `HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="Tandem browser"\r\nContent-Length: 0\r\n\r\n`,
      );
      return;
    }
    const match = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(req.url ?? "");
    if (!match) return void socket.end("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n");
    const host = match[1]!.replace(/^\[|\]$/g, "");
    const port = Number(match[2]);
    let to: { host: string; port: number };
    try {
      to = await destination(client, host, port);
    } catch (error) {
      if (!(error instanceof Refused)) throw error;
      const body = refuse(client, host, port, error);
      socket.end(
        `HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
      return;
    }
    const upstream = net.connect(to);
    upstream.once("error", () => socket.end("HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n"));
    upstream.once("connect", () => {
      socket.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length) upstream.write(head);
      socket.pipe(upstream);
      splice(socket, upstream);
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as net.AddressInfo;
  return {
    server: `http://127.0.0.1:${port}`,
    client(projectId, refused) {
      const password = randomBytes(24).toString("base64url");
      clients.set(password, { projectId, refused });
      return { username: USER, password, release: () => void clients.delete(password) };
    },
    async close() {
      clients.clear();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
