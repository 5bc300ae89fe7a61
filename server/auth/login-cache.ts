import type { Auth } from "@/server/auth/auth";
import type { AccessChanges } from "@/server/bus/access-changes";
import { toAppUser, type AppUser } from "@/server/db/repositories/users";

// The signed-in user behind an HTTP call. better-auth checks the cookie's signature and reads the
// login session and then its user (two queries) on every call; a page load makes a dozen calls at
// once, and fifty agent sessions starting make a hundred. Here the calls with one cookie that
// arrive together share one read, and its answer is kept for a second, as a WebSocket connection
// keeps its user (server/api/trpc.ts). Everything kept is dropped at once, on every instance,
// when an access change concerns anyone (a sign-out or a revoked login session, a membership or
// a role changed: server/bus/access-changes.ts), and a read under way when the change came is not
// kept. So a change made through the product counts from the next call; only one made behind its
// back (SQL by hand) can take up to a second. A cookie without a valid login session is not kept.

export type LoginCache = {
  /** The user signed in with these headers' cookie, or null. */
  user(headers: Headers): Promise<AppUser | null>;
  /** The same, read now, past what is kept (a WebSocket connection keeps its own). */
  fresh(headers: Headers): Promise<AppUser | null>;
};

export const LOGIN_CACHE_TTL_MS = 1_000;
/** Past this many cookies, the expired ones are dropped as new ones come. */
const SWEEP_OVER = 1_000;

export function createLoginCache(auth: Auth, accessChanges: AccessChanges, ttlMs = LOGIN_CACHE_TTL_MS): LoginCache {
  const kept = new Map<string, { user: AppUser; at: number }>();
  const reading = new Map<string, Promise<AppUser | null>>();
  let generation = 0; // changes seen so far
  accessChanges.subscribe({ everyone: true }, () => {
    generation += 1;
    kept.clear();
    reading.clear();
  });

  async function read(headers: Headers): Promise<AppUser | null> {
    const session = await auth.api.getSession({ headers }).catch(() => null);
    return session ? toAppUser(session.user) : null;
  }

  function keep(cookie: string, user: AppUser) {
    const now = Date.now();
    if (kept.size >= SWEEP_OVER) for (const [key, entry] of kept) if (now - entry.at >= ttlMs) kept.delete(key);
    kept.set(cookie, { user, at: now });
  }

  return {
    user(headers) {
      const cookie = headers.get("cookie");
      if (!cookie) return read(headers);
      const entry = kept.get(cookie);
      if (entry && Date.now() - entry.at < ttlMs) return Promise.resolve(entry.user);
      const pending = reading.get(cookie);
      if (pending) return pending;
      const startedIn = generation;
      const promise = read(headers).then((user) => {
        if (reading.get(cookie) === promise) reading.delete(cookie);
        if (user && generation === startedIn) keep(cookie, user);
        return user;
      });
      reading.set(cookie, promise);
      return promise;
    },
    fresh: read,
  };
}
