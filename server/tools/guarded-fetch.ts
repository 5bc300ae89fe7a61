import { lookup as dnsLookup } from "node:dns/promises";
import type { LookupAddress } from "node:dns";
import { isIP } from "node:net";
import { Agent, buildConnector, request, type Dispatcher } from "undici";
import type { NetworkPolicy } from "@/lib/egress-policy";
import { trustedCa } from "@/server/sandbox/trust-store";
import type { FetchPolicy } from "./define-tool";
import { blockedReason } from "@/server/sandbox/ip-policy";
import { refusedByProject } from "./project-network";
import { ToolFailure } from "./result";

export const FETCH_TIMEOUT_MS = 30_000;
export const FETCH_MAX_BYTES = 5 * 1024 * 1024;
export const FETCH_MAX_REDIRECTS = 5;

export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export interface FetchLimits {
  timeoutMs: number;
  maxBytes: number;
  maxRedirects: number;
  /** Name resolution; the system resolver unless server configuration (tests) says otherwise. */
  resolve: Resolver;
}

export interface Fetched {
  url: string;
  status: number;
  contentType: string;
  body: Buffer;
  redirects: string[];
}

const defaultResolve: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

class BlockedAddress extends Error {
  readonly code = "BLOCKED_ADDRESS";
}

function blocked(host: string, address: string, why: string): ToolFailure {
  return new ToolFailure(
    "BLOCKED_ADDRESS",
    `'${host}' resolves to ${address}, a ${why} address. web_fetch only reaches public internet addresses; local and internal services cannot be fetched. Use the shell for local servers.`,
  );
}

/**
 * Whether the server's own allow-list (configuration, never a project or the model) exempts
 * this host from the address check: an entry is a host name or "host:port".
 */
export function onServerAllowList(allowHosts: readonly string[], hostname: string, port: string): boolean {
  const host = hostname.toLowerCase();
  return allowHosts.some((entry) => {
    const e = entry.toLowerCase();
    return e === host || e === `${host}:${port}`;
  });
}

/**
 * An undici agent for the server's own connections on behalf of a project: loopback, private,
 * link-local and metadata addresses are refused, except hosts on the server's allow-list. The
 * check is in the connection's own connector: a name through its DNS lookup (the address that is
 * checked is the address that is connected to, so DNS rebinding gains nothing), an address literal
 * before connecting; so every connection passes it, redirects that fetch follows included.
 * `onRefused` hears each refusal (a WebSocket's error event does not carry its cause).
 */
export function guardedAgent(
  allowHosts: readonly string[],
  resolve: Resolver = defaultResolve,
  onRefused?: (refusal: AddressRefusal) => void,
): Agent {
  return new Agent({ connect: guardedConnector(allowHosts, resolve, onRefused), connections: 4 });
}

/**
 * The connector of `guardedAgent`, for a connection that is not HTTP (an MCP server over TCP): it
 * opens a socket to `hostname:port` under the same address check (a `protocol` other than
 * "https:" is a plain TCP socket).
 */
export function guardedConnector(
  allowHosts: readonly string[],
  resolve: Resolver = defaultResolve,
  onRefused?: (refusal: AddressRefusal) => void,
): buildConnector.connector {
  const refuse = (host: string, address: string, why: string) => {
    onRefused?.({ host, address, why });
    return new BlockedAddress(`${host}|${address}|${why}`);
  };
  const lookup = (hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    resolve(hostname).then(
      (addresses) => {
        if (addresses.length === 0)
          return callback(Object.assign(new Error(`No address for ${hostname}`), { code: "ENOTFOUND" }));
        for (const a of addresses) {
          const why = blockedReason(a.address);
          if (why) return callback(refuse(hostname, a.address, why));
        }
        if (options.all) callback(null, addresses);
        else callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (error: unknown) => callback(error),
    );
  };
  // The admin's extra certificates (TANDEM_EXTRA_CA_CERTS) are trusted here as everywhere.
  const ca = trustedCa();
  const checked = buildConnector({ lookup: lookup as never, ...(ca ? { ca } : {}) });
  const exempt = buildConnector(ca ? { ca } : {});
  const connect: buildConnector.connector = (options, callback) => {
    const port = options.port || (options.protocol === "https:" ? "443" : "80");
    if (onServerAllowList(allowHosts, options.hostname, port)) return exempt(options, callback);
    const literal = options.hostname.replace(/^\[|\]$/g, "");
    const why = isIP(literal) ? blockedReason(literal) : null;
    if (why) return callback(refuse(options.hostname, literal, why), null);
    return checked(options, callback);
  };
  return connect;
}

const agents = new WeakMap<Resolver, Map<string, Agent>>();

/** One guarded agent per resolver and allow-list, shared by every web_fetch. */
export function guardedDispatcher(allowHosts: readonly string[], resolve: Resolver = defaultResolve): Dispatcher {
  const byList = agents.get(resolve) ?? new Map<string, Agent>();
  agents.set(resolve, byList);
  const key = allowHosts.join(" ");
  let agent = byList.get(key);
  if (!agent) byList.set(key, (agent = guardedAgent(allowHosts, resolve)));
  return agent;
}

function findBlocked(error: unknown): BlockedAddress | undefined {
  for (let e = error; e; e = (e as { cause?: unknown }).cause) {
    if (e instanceof BlockedAddress) return e;
    if (e instanceof AggregateError) {
      const inner = e.errors.find((x) => x instanceof BlockedAddress);
      if (inner) return inner as BlockedAddress;
    }
  }
  return undefined;
}

/** A connection refused by the address check: the host asked for, the address it is, and why. */
export type AddressRefusal = { host: string; address: string; why: string };

/** The refused address behind a failed connection, or null. */
export function blockedAddressOf(error: unknown): AddressRefusal | null {
  const b = findBlocked(error);
  if (!b) return null;
  const [host, address, why] = b.message.split("|");
  return { host: host!, address: address!, why: why! };
}

/**
 * GET with redirects followed by hand, a time limit and a size cap. Each hop must pass the
 * project's network policy (`project`) by its host, then the address check when it connects.
 */
export async function guardedFetch(
  input: string,
  policy: FetchPolicy,
  limits: FetchLimits,
  signal: AbortSignal,
  project: NetworkPolicy,
): Promise<Fetched> {
  const timeout = AbortSignal.timeout(limits.timeoutMs);
  const combined = AbortSignal.any([signal, timeout]);
  const redirects: string[] = [];
  const dispatcher = guardedDispatcher(policy.allowHosts, limits.resolve);
  let url = parseUrl(input);
  try {
    for (;;) {
      const refused = refusedByProject(project, url.hostname, "web_fetch");
      if (refused) throw refused;
      const response = await request(url, {
        method: "GET",
        dispatcher,
        signal: combined,
        headers: {
          "user-agent": "Tandem/1.0 (web_fetch)",
          accept: "text/html,application/xhtml+xml,application/json,text/plain;q=0.9,*/*;q=0.8",
        },
      });
      if (response.statusCode >= 300 && response.statusCode < 400 && response.headers.location) {
        await response.body.dump();
        if (redirects.length >= limits.maxRedirects) {
          throw new ToolFailure(
            "FETCH_FAILED",
            `Too many redirects (more than ${limits.maxRedirects}); the last one pointed to ${String(response.headers.location)}.`,
          );
        }
        const next = parseUrl(new URL(String(response.headers.location), url).toString());
        redirects.push(next.toString());
        url = next;
        continue;
      }
      const length = Number(response.headers["content-length"] ?? 0);
      if (length > limits.maxBytes) {
        await response.body.dump();
        throw tooLarge(url, limits.maxBytes);
      }
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of response.body) {
        size += (chunk as Buffer).length;
        if (size > limits.maxBytes) {
          response.body.destroy();
          throw tooLarge(url, limits.maxBytes);
        }
        chunks.push(chunk as Buffer);
      }
      const contentType = String(response.headers["content-type"] ?? "application/octet-stream");
      return { url: url.toString(), status: response.statusCode, contentType, body: Buffer.concat(chunks), redirects };
    }
  } catch (error) {
    if (error instanceof ToolFailure) throw error;
    const b = blockedAddressOf(error);
    if (b) throw blocked(b.host, b.address, b.why);
    if (timeout.aborted && !signal.aborted) {
      throw new ToolFailure(
        "TIMEOUT",
        `${url} did not answer within ${limits.timeoutMs / 1000} s. Try again later or another source.`,
      );
    }
    if (signal.aborted) throw error;
    const message = (error as Error).message ?? String(error);
    const code = (error as { code?: string }).code;
    throw new ToolFailure("FETCH_FAILED", `Could not fetch ${url}: ${code ? `${code} ` : ""}${message}`);
  }
}

function tooLarge(url: URL, max: number): ToolFailure {
  return new ToolFailure(
    "TOO_LARGE",
    `${url} is larger than ${max / 1024 / 1024} MB, the web_fetch limit. Look for a smaller page or a specific section, or use an API that pages its results.`,
  );
}

export function parseUrl(input: string): URL {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new ToolFailure("INVALID_INPUT", `url: '${input}' is not a valid URL. Give a full http:// or https:// URL.`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ToolFailure("INVALID_INPUT", `url: only http and https URLs can be fetched, not ${url.protocol}`);
  }
  if (url.username || url.password)
    throw new ToolFailure("INVALID_INPUT", "url: URLs with credentials are not fetched.");
  return url;
}

export function fetchLimits(policy: FetchPolicy & Partial<FetchLimits>): FetchLimits {
  return {
    timeoutMs: policy.timeoutMs ?? FETCH_TIMEOUT_MS,
    maxBytes: policy.maxBytes ?? FETCH_MAX_BYTES,
    maxRedirects: policy.maxRedirects ?? FETCH_MAX_REDIRECTS,
    resolve: policy.resolve ?? defaultResolve,
  };
}
