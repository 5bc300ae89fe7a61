import type { AuditOrigin } from "@/server/db/audit-origin";

// The server sets this header from the socket's address and drops any value a client sent, so
// rate limits key on the real peer and the audit log records it (server/start-server.ts).
export const CLIENT_IP_HEADER = "x-tandem-client-ip";

/**
 * Where a request came from, for the audit log: the peer's address as the server set it
 * (start-server.ts; behind a reverse proxy it is the proxy's), the X-Forwarded-For the peer sent
 * (kept as claimed, not trusted), and its User-Agent.
 */
export function requestOrigin(
  headers: Headers,
  actor: { user: { id: string; email: string } | null; tokenId?: string | null; link?: boolean },
): AuditOrigin {
  return {
    actorId: actor.user?.id ?? null,
    actorEmail: actor.user?.email ?? null,
    via: actor.tokenId ? "token" : actor.user ? "browser" : actor.link ? "link" : "anonymous",
    tokenId: actor.tokenId ?? null,
    ip: headers.get(CLIENT_IP_HEADER),
    forwardedFor: headers.get("x-forwarded-for"),
    userAgent: headers.get("user-agent"),
  };
}
