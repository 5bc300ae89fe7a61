// Tells open connections that someone's access may have shrunk, so they re-check it at once (not
// at their next request): a member removed or their role lowered, a login session ended (or
// or an API token reached its expiry: server/auth/credential-expiries.ts), a project or a session deleted. In-process here; server/cluster/pg-access-changes.ts carries it to every
// instance through Postgres LISTEN/NOTIFY. A change names who or what it concerns; each listener
// decides whether that is its caller, project or session and re-checks through server/api/access.ts.

export type AccessChange =
  /** A membership or role of this person changed, or one of their login sessions or API tokens ended. */
  { kind: "user"; userId: string } | { kind: "project"; projectId: string } | { kind: "session"; sessionId: string };

/**
 * What an open connection holds: its person, and the project and session it is about.
 * `everyone`: every change about any person (what server/auth/login-cache.ts keeps); told once
 * with an empty userId when changes may have been missed (a cluster's lost connection).
 * `loginSessionId` / `tokenId`: the browser login or the API token it was opened under, whose
 * expiry is a change about its person for it alone (server/auth/credential-expiries.ts follows it).
 */
export type AccessHolder = {
  userId?: string | null;
  loginSessionId?: string | null;
  tokenId?: string | null;
  projectId?: string | null;
  sessionId?: string | null;
  /**
   * The maker of the share link it was opened through: a link shows only while its maker could
   * still share (server/api/access.ts), so a change about them is a change about it.
   */
  linkMakerId?: string | null;
  everyone?: boolean;
};

export function concerns(change: AccessChange, holder: AccessHolder): boolean {
  switch (change.kind) {
    case "user":
      return (
        holder.everyone === true ||
        (!!holder.userId && holder.userId === change.userId) ||
        (!!holder.linkMakerId && holder.linkMakerId === change.userId)
      );
    case "project":
      return !!holder.projectId && holder.projectId === change.projectId;
    case "session":
      return !!holder.sessionId && holder.sessionId === change.sessionId;
  }
}

export interface AccessChanges {
  publish(change: AccessChange): void;
  /** Calls `listener` for every change concerning `holder`; returns the function that stops listening. */
  subscribe(holder: AccessHolder, listener: (change: AccessChange) => void): () => void;
}

export function createAccessChanges(): AccessChanges {
  const listeners = new Set<{ holder: AccessHolder; listener: (change: AccessChange) => void }>();
  return {
    publish(change) {
      for (const entry of [...listeners]) if (concerns(change, entry.holder)) entry.listener(change);
    },
    subscribe(holder, listener) {
      const entry = { holder, listener };
      listeners.add(entry);
      return () => void listeners.delete(entry);
    },
  };
}
