import type http from "node:http";

// What crosses between the browser and the previewed app, header by header: the app gets the Host
// and Origin it expects and none of Tandem's cookies or headers; the browser gets the app's
// answer without what could reach past the preview's own host (its session cookie, a cookie's
// Domain, Clear-Site-Data) and never cached for someone without a session.

export const PREVIEW_COOKIE = "tandem_preview";

const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "te",
  "trailer",
  "upgrade",
]);

export function cookiesWithout(header: string | undefined, name: string): { ours: string | null; rest: string } {
  let ours: string | null = null;
  const rest: string[] = [];
  for (const part of (header ?? "").split(";")) {
    const trimmed = part.trim();
    if (!trimmed) continue;
    const eq = trimmed.indexOf("=");
    if ((eq < 0 ? trimmed : trimmed.slice(0, eq)) === name) {
      // Two of ours (one planted by the app for a parent domain) is none: which is which cannot be told.
      ours = ours === null ? trimmed.slice(eq + 1) : "";
    } else rest.push(trimmed);
  }
  return { ours: ours || null, rest: rest.join("; ") };
}

/** The request's headers as the dev server gets them: its own Host and Origin, no preview cookie, no hop-by-hop. */
export function forwardedHeaders(
  req: http.IncomingMessage,
  origin: string,
  port: number,
  options: { upgrade: boolean; plain?: boolean },
): string[] {
  const upgrade = options.upgrade;
  const out: string[] = [];
  const raw = req.rawHeaders;
  const local = `localhost:${port}`;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    let value = raw[i + 1]!;
    const lower = name.toLowerCase();
    // Tandem's own headers (a peer instance's signature on a forwarded request) are not the app's.
    if (lower === "host" || lower === "cookie" || lower.startsWith("x-tandem-")) continue;
    // Answered here already (100 Continue comes from this server): the body follows on its own.
    if (lower === "expect") continue;
    // A page the script is added to must come uncompressed.
    if (options.plain && lower === "accept-encoding") continue;
    if (HOP_BY_HOP.has(lower) && !(upgrade && (lower === "connection" || lower === "upgrade"))) continue;
    if ((lower === "origin" || lower === "referer") && value.startsWith(origin))
      value = `http://${local}${value.slice(origin.length)}`;
    out.push(name, value);
  }
  const rest = cookiesWithout(req.headers.cookie, PREVIEW_COOKIE).rest;
  if (rest) out.push("Cookie", rest);
  out.unshift("Host", local);
  return out;
}

/**
 * An app's Set-Cookie as the browser gets it, or null when it would set the preview's own session
 * cookie as a browser reads it (RFC 6265 5.2: the name is what comes before the first `=`,
 * whitespace around it dropped; without a `=`, or with nothing before it, the cookie is nameless
 * and sent as its bare value, which could pass for the session). A `Domain` attribute goes: the
 * cookie stays on the preview's own host, and never reaches the IDE's host (a preview under
 * `localhost` beside an IDE opened at `localhost`) or another project's preview.
 */
function appCookie(setCookie: string): string | null {
  const [pair, ...attributes] = setCookie.split(";");
  const eq = pair!.indexOf("=");
  const name = eq < 0 ? "" : pair!.slice(0, eq).trim();
  if (name === "" || name === PREVIEW_COOKIE) return null;
  return [pair, ...attributes.filter((a) => !/^\s*domain\s*(=|$)/i.test(a))].join(";");
}

/** The app may not set or clear the preview's own session cookie; a page the script is added to changes length. */
export function answerHeaders(raw: string[], rewritten: boolean): string[] {
  const out: string[] = [];
  const caching: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const lower = raw[i]!.toLowerCase();
    // Clear-Site-Data reaches past the preview's own host (its cookies go for the whole site).
    if (HOP_BY_HOP.has(lower) || lower === "clear-site-data") continue;
    if (rewritten && (lower === "content-length" || lower === "etag")) continue;
    if (lower === "cache-control") {
      caching.push(raw[i + 1]!);
      continue;
    }
    const value = lower === "set-cookie" ? appCookie(raw[i + 1]!) : raw[i + 1]!;
    if (value !== null) out.push(raw[i]!, value);
  }
  out.push("Cache-Control", privateCaching(caching.join(",")));
  return out;
}

/**
 * An answer is for whoever the preview's session admits: no shared cache (a CDN in front of a
 * deployment's previews) may keep it for someone without one. The app's directives stay, but for
 * `public` and those only shared caches read; `private` goes first.
 */
function privateCaching(value: string): string {
  const kept = value
    .split(",")
    .map((directive) => directive.trim())
    .filter((directive) => directive && !/^(public|private|proxy-revalidate|s-maxage\s*=.*)$/i.test(directive));
  return ["private", ...kept].join(", ");
}

/** The longest answer head a WebSocket handshake may have (Node's own limit for any HTTP head). */
export const MAX_HANDSHAKE_HEAD = 16 * 1024;

/**
 * The head of the dev server's answer to a WebSocket handshake as the browser gets it: its
 * cookies as any answer's (appCookie), without a folded line (obsolete; it could continue one).
 * Null for a head with a bare CR or LF, which a browser may take for a line's end where this
 * reading does not.
 */
export function handshakeHead(head: string): string | null {
  if (/\r(?!\n)|(?<!\r)\n/.test(head)) return null;
  const [status, ...lines] = head.split("\r\n");
  const kept = lines.flatMap((line) => {
    if (/^[ \t]/.test(line)) return [];
    const colon = line.indexOf(":");
    if (line.slice(0, colon).trim().toLowerCase() !== "set-cookie") return [line];
    const cookie = appCookie(line.slice(colon + 1).trim());
    return cookie === null ? [] : [`Set-Cookie: ${cookie}`];
  });
  return [status, ...kept].join("\r\n");
}
