import { AsyncLocalStorage } from "node:async_hooks";
import type { AuditVia } from "@/lib/audit";

// Who is acting and from where, for the audit log. The API sets it once per call (server/api/trpc.ts)
// and everything the call does runs inside it, so the repositories that record a security-relevant
// change (audit-events.ts) need not be handed the request. Work with no caller (jobs, start-up) has
// none: its rows say `system`.

export type AuditOrigin = {
  actorId: string | null;
  actorEmail: string | null;
  via: AuditVia;
  tokenId?: string | null;
  /** The peer's address as the server saw it: behind a reverse proxy, the proxy's. */
  ip?: string | null;
  /** What the peer claimed in X-Forwarded-For: unverified, kept beside the address rather than in its place. */
  forwardedFor?: string | null;
  userAgent?: string | null;
};

const current = new AsyncLocalStorage<AuditOrigin>();

export function withAuditOrigin<T>(origin: AuditOrigin, work: () => T): T {
  return current.run(origin, work);
}

export function auditOrigin(): AuditOrigin {
  return current.getStore() ?? { actorId: null, actorEmail: null, via: "system" };
}
