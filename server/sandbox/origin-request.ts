import type http from "node:http";
import { Transform } from "node:stream";

// The request a plain-HTTP proxy sends on to the origin server, from one request that node's
// HTTP parser (llhttp, the parser node:http is built on) has read and checked: origin-form
// target, the target's Host, the client's other headers in their order and spelling, no hop-by-hop or Proxy-* ones,
// and `Connection: close`. Every request gets its own connection to its origin, so its host is
// checked; the origin's answer goes back to the client as raw bytes, and the origin closing its
// connection is the end of it (egress-proxy.ts).
//
// Written here rather than with http.request: http.request re-parses the whole response, and
// the response is what a download is made of (bench/sandbox.ts). Only this head is written.

/** Headers for this hop only (RFC 9110, 7.6.1), and those the proxy answers itself. */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authorization",
  "proxy-authenticate",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "expect",
]);

export type OriginRequest = {
  /** The request line and headers, ending with the empty line. */
  head: string;
  /** Whether the body is sent in chunks (it arrives from the parser without its framing). */
  chunked: boolean;
};

export function originRequest(req: http.IncomingMessage, target: URL): OriginRequest {
  const named = new Set((req.headers.connection ?? "").split(",").map((token) => token.trim().toLowerCase()));
  const chunked = /(^|,)\s*chunked\s*$/i.test(String(req.headers["transfer-encoding"] ?? ""));
  // An HTTP/1.0 client cannot read chunked answers; asking in its version keeps them out.
  const version = req.httpVersion === "1.0" ? "1.0" : "1.1";
  const lines = [`${req.method} ${target.pathname}${target.search} HTTP/${version}`];
  const raw = req.rawHeaders;
  // The Host is the target's, the host the policy admitted, whatever the client wrote.
  lines.push(`Host: ${target.host}`);
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (name === "host" || HOP_BY_HOP.has(name) || named.has(name) || (chunked && name === "content-length")) continue;
    lines.push(`${raw[i]}: ${raw[i + 1]}`);
  }
  if (chunked) lines.push("Transfer-Encoding: chunked");
  lines.push("Connection: close", "", "");
  return { head: lines.join("\r\n"), chunked };
}

/** Puts back the chunk framing the parser took off a chunked body (trailers are not forwarded). */
export function chunkEncoder(): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      // An empty chunk would read as the body's end.
      if (chunk.length === 0) return done();
      done(null, Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from("\r\n")]));
    },
    flush(done) {
      done(null, "0\r\n\r\n");
    },
  });
}
