import { lookup as dnsLookup } from "node:dns/promises";
import type { LookupAddress } from "node:dns";
import { isIP } from "node:net";
import { Agent, request } from "undici";
import type { FetchPolicy } from "./define-tool";
import { blockedReason } from "./ip-policy";
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
 * The address check lives in the connection's own DNS lookup, so the address that is checked is
 * the address that is connected to: a name that changes its answer between a check and the
 * connection (DNS rebinding) gains nothing.
 */
function guardedAgent(resolve: Resolver): Agent {
  const lookup = (hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    resolve(hostname).then(
      (addresses) => {
        if (addresses.length === 0) return callback(Object.assign(new Error(`No address for ${hostname}`), { code: "ENOTFOUND" }));
        for (const a of addresses) {
          const why = blockedReason(a.address);
          if (why) return callback(new BlockedAddress(`${hostname}|${a.address}|${why}`));
        }
        if (options.all) callback(null, addresses);
        else callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (error: unknown) => callback(error),
    );
  };
  return new Agent({ connect: { lookup: lookup as never }, connections: 4 });
}

const agents = new WeakMap<Resolver, Agent>();
let openAgent: Agent | undefined;

function isAllowed(url: URL, policy: FetchPolicy): boolean {
  const host = url.hostname.toLowerCase();
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  return policy.allowHosts.some((entry) => {
    const e = entry.toLowerCase();
    return e === host || e === `${host}:${port}`;
  });
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

/** GET with redirects followed by hand (each hop re-checked), a time limit and a size cap. */
export async function guardedFetch(input: string, policy: FetchPolicy, limits: FetchLimits, signal: AbortSignal): Promise<Fetched> {
  const timeout = AbortSignal.timeout(limits.timeoutMs);
  const combined = AbortSignal.any([signal, timeout]);
  const redirects: string[] = [];
  let url = parseUrl(input);
  try {
    for (;;) {
      const allowed = isAllowed(url, policy);
      const host = url.hostname.replace(/^\[|\]$/g, "");
      if (!allowed && isIP(host)) {
        const why = blockedReason(host);
        if (why) throw blocked(url.hostname, host, why);
      }
      let agent: Agent;
      if (allowed) agent = openAgent ??= new Agent({ connections: 4 });
      else {
        agent = agents.get(limits.resolve) ?? guardedAgent(limits.resolve);
        agents.set(limits.resolve, agent);
      }
      const response = await request(url, {
        method: "GET",
        dispatcher: agent,
        signal: combined,
        headers: { "user-agent": "Tandem/1.0 (web_fetch)", accept: "text/html,application/xhtml+xml,application/json,text/plain;q=0.9,*/*;q=0.8" },
      });
      if (response.statusCode >= 300 && response.statusCode < 400 && response.headers.location) {
        await response.body.dump();
        if (redirects.length >= limits.maxRedirects) {
          throw new ToolFailure("FETCH_FAILED", `Too many redirects (more than ${limits.maxRedirects}); the last one pointed to ${String(response.headers.location)}.`);
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
    const b = findBlocked(error);
    if (b) {
      const [host, address, why] = b.message.split("|");
      throw blocked(host!, address!, why!);
    }
    if (timeout.aborted && !signal.aborted) {
      throw new ToolFailure("TIMEOUT", `${url} did not answer within ${limits.timeoutMs / 1000} s. Try again later or another source.`);
    }
    if (signal.aborted) throw error;
    const message = (error as Error).message ?? String(error);
    const code = (error as { code?: string }).code;
    throw new ToolFailure("FETCH_FAILED", `Could not fetch ${url}: ${code ? `${code} ` : ""}${message}`);
  }
}

function tooLarge(url: URL, max: number): ToolFailure {
  return new ToolFailure("TOO_LARGE", `${url} is larger than ${max / 1024 / 1024} MB, the web_fetch limit. Look for a smaller page or a specific section, or use an API that pages its results.`);
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
  if (url.username || url.password) throw new ToolFailure("INVALID_INPUT", "url: URLs with credentials are not fetched.");
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
