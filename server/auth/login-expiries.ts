import type { AccessChange, AccessChanges } from "@/server/bus/access-changes";

// A login that simply reaches its expiry publishes no access change (nothing ends it: better-auth
// only finds it expired at the next read), so what is open under it would go on. Here the
// access-change bus follows the login each open connection names (AccessHolder.loginSessionId):
// one timer per login with something open under it on this instance, at its expiry, where the
// login is read again. Ended: its connections are told as by a sign-out (a change about their
// person), and each re-checks and closes as it does then. Moved on meanwhile (using the IDE renews
// a login: better-auth's updateAge, server/auth/auth.ts): the next expiry is waited for. The timer
// goes with the login's last connection. Each instance follows its own connections' logins, and
// tells only them: the other instances follow theirs.

export type LoginExpiries = AccessChanges & {
  /** How many logins this instance follows (has a timer or a read under way for). */
  followedLogins(): number;
};

/** Until when a login lasts (milliseconds since the epoch), or null once it ended. */
export type LoginLasts = (loginSessionId: string) => Promise<number | null>;

const MAX_TIMER_MS = 2 ** 31 - 1;
/** A login that could not be read (the database unreachable) is read again this much later. */
const RETRY_MS = 5_000;

type Followed = {
  userId: string;
  listeners: Set<{ listener: (change: AccessChange) => void }>;
  timer?: NodeJS.Timeout;
  /** The login is over: a connection that joins it still (admitted by a kept answer) is told at once. */
  over?: AccessChange;
};

export function followLoginExpiries(changes: AccessChanges, lasts: LoginLasts, retryMs = RETRY_MS): LoginExpiries {
  const followed = new Map<string, Followed>();

  const wakeAt = (loginSessionId: string, login: Followed, time: number) => {
    // A millisecond over: a timer may fire up to one early by the clock the expiry is judged by.
    login.timer = setTimeout(
      () => void check(loginSessionId, login),
      Math.min(Math.max(0, time - Date.now() + 1), MAX_TIMER_MS),
    );
    login.timer.unref();
  };

  async function check(loginSessionId: string, login: Followed) {
    login.timer = undefined;
    const until = await lasts(loginSessionId).catch(() => undefined);
    // Its last connection closed while the login was read.
    if (followed.get(loginSessionId) !== login) return;
    if (until === undefined) return wakeAt(loginSessionId, login, Date.now() + retryMs);
    if (until !== null) return wakeAt(loginSessionId, login, until);
    // Over, and over for good: no next timer. Those still listening after their re-check (a
    // connection that stays open signed out) keep the entry until they close.
    login.over = { kind: "user", userId: login.userId };
    for (const { listener } of [...login.listeners]) listener(login.over);
  }

  return {
    publish: (change) => changes.publish(change),
    subscribe(holder, listener) {
      const stop = changes.subscribe(holder, listener);
      const { loginSessionId, userId } = holder;
      if (!loginSessionId || !userId) return stop;
      let login = followed.get(loginSessionId);
      if (!login) {
        login = { userId, listeners: new Set() };
        followed.set(loginSessionId, login);
        // Read at once: a login that ended between the connection's admission and now ends it now.
        void check(loginSessionId, login);
      }
      const entry = { listener };
      login.listeners.add(entry);
      const held = login;
      const over = login.over;
      if (over) queueMicrotask(() => held.listeners.has(entry) && listener(over));
      return () => {
        stop();
        held.listeners.delete(entry);
        if (held.listeners.size || followed.get(loginSessionId) !== held) return;
        clearTimeout(held.timer);
        followed.delete(loginSessionId);
      };
    },
    followedLogins: () => followed.size,
  };
}
