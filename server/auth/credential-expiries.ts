import type { AccessChange, AccessChanges, AccessHolder } from "@/server/bus/access-changes";

// A login or an API token that simply reaches its expiry publishes no access change (nothing ends
// it: better-auth and the token reader only find it expired at the next read), so what is open
// under it would go on. Here the access-change bus follows the credential each open connection
// names (AccessHolder.loginSessionId or tokenId): one timer per credential with something open
// under it on this instance, at its expiry, where the credential is read again. Ended: its
// connections are told as by a sign-out (a change about their person), and each re-checks and
// closes as it does then. Moved on meanwhile (using the IDE renews a login: better-auth's
// updateAge, server/auth/auth.ts): the next expiry is waited for. The timer goes with the
// credential's last connection. Each instance follows its own connections' credentials, and tells
// only them: the other instances follow theirs. A credential taken away (a sign-out, a revoked
// token, a person disabled or removed) is a published change already, told to every instance.

export type CredentialExpiries = AccessChanges & {
  /** How many logins and tokens this instance follows (has a timer or a read under way for). */
  followedCredentials(): number;
};

/** What a connection was opened with: a browser's login session, or an API token. */
export type CredentialKind = "login" | "token";

/**
 * Until when a login or a token lasts (milliseconds since the epoch), read now, or null once it
 * ended (expired, signed out or revoked, or its person disabled).
 */
export type CredentialLasts = Record<CredentialKind, (id: string) => Promise<number | null>>;

const MAX_TIMER_MS = 2 ** 31 - 1;
/** A credential that could not be read (the database unreachable) is read again this much later. */
const RETRY_MS = 5_000;

type Followed = {
  kind: CredentialKind;
  id: string;
  userId: string;
  listeners: Set<{ listener: (change: AccessChange) => void }>;
  timer?: NodeJS.Timeout;
  /** The credential is over: a connection that joins it still (admitted by a kept answer) is told at once. */
  over?: AccessChange;
};

/** The credential a holder names (a call is made with a login or a token, never both), keyed by its kind. */
function credentialOf(holder: AccessHolder): { kind: CredentialKind; id: string; key: string } | null {
  if (holder.loginSessionId) return { kind: "login", id: holder.loginSessionId, key: `login:${holder.loginSessionId}` };
  if (holder.tokenId) return { kind: "token", id: holder.tokenId, key: `token:${holder.tokenId}` };
  return null;
}

export function followCredentialExpiries(
  changes: AccessChanges,
  lasts: CredentialLasts,
  retryMs = RETRY_MS,
): CredentialExpiries {
  const followed = new Map<string, Followed>();

  const wakeAt = (key: string, credential: Followed, time: number) => {
    // A millisecond over: a timer may fire up to one early by the clock the expiry is judged by.
    credential.timer = setTimeout(
      () => void check(key, credential),
      Math.min(Math.max(0, time - Date.now() + 1), MAX_TIMER_MS),
    );
    credential.timer.unref();
  };

  async function check(key: string, credential: Followed) {
    credential.timer = undefined;
    const until = await lasts[credential.kind](credential.id).catch(() => undefined);
    // Its last connection closed while the credential was read.
    if (followed.get(key) !== credential) return;
    if (until === undefined) return wakeAt(key, credential, Date.now() + retryMs);
    if (until !== null) return wakeAt(key, credential, until);
    // Over, and over for good: no next timer. Those still listening after their re-check (a
    // connection that stays open signed out) keep the entry until they close.
    credential.over = { kind: "user", userId: credential.userId };
    for (const { listener } of [...credential.listeners]) listener(credential.over);
  }

  return {
    publish: (change) => changes.publish(change),
    subscribe(holder, listener) {
      const stop = changes.subscribe(holder, listener);
      const named = credentialOf(holder);
      const { userId } = holder;
      if (!named || !userId) return stop;
      const { key } = named;
      let credential = followed.get(key);
      if (!credential) {
        credential = { kind: named.kind, id: named.id, userId, listeners: new Set() };
        followed.set(key, credential);
        // Read at once: a credential that ended between the connection's admission and now ends it now.
        void check(key, credential);
      }
      const entry = { listener };
      credential.listeners.add(entry);
      const held = credential;
      const over = credential.over;
      if (over) queueMicrotask(() => held.listeners.has(entry) && listener(over));
      return () => {
        stop();
        held.listeners.delete(entry);
        if (held.listeners.size || followed.get(key) !== held) return;
        clearTimeout(held.timer);
        followed.delete(key);
      };
    },
    followedCredentials: () => followed.size,
  };
}
