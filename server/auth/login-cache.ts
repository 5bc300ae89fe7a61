import type { Auth } from "@/server/auth/auth";
import type { AccessChanges } from "@/server/bus/access-changes";
import { toAppUser, type AppUser } from "@/server/db/repositories/users";
import { bearerToken, type ApiTokenReader, type TokenGrant } from "@/server/auth/api-tokens";

// The signed-in user behind an HTTP call. better-auth checks the cookie's signature and reads the
// login session and then its user (two queries) on every call; a page load makes a dozen calls at
// once, and fifty agent sessions starting make a hundred. Here the calls with one cookie that
// arrive together share one read, and its answer is kept for a second, as a WebSocket connection
// keeps its user (server/api/trpc.ts). Everything kept is dropped at once, on every instance,
// when an access change concerns anyone (a sign-out or a revoked login session or API token, a
// membership or a role changed: server/bus/access-changes.ts), and a read under way when the change
// came is not kept. So a change made through the product counts from the next call; only one made
// behind its back (SQL by hand) can take up to a second. A cookie without a valid login session is
// not kept, and nothing is kept past the expiry of the login or token it read (which publishes no
// change). A call with an API token (server/auth/api-tokens.ts) is kept the same way, by its
// Authorization header, and never looks at the cookie.

/**
 * Who makes a call: the person, and the API token they made it with (null: their browser login),
 * or the id of the browser's login session (null: a token), which what lasts only as long as that
 * login is bound to (a preview session: server/preview/preview-access.ts). `lastsUntil`: the
 * login's or token's expiry as read (milliseconds since the epoch).
 */
export type Login = { user: AppUser; token: TokenGrant | null; loginSessionId: string | null; lastsUntil: number };

export type LoginCache = {
  /** The person signed in with these headers' API token or cookie, or null. */
  user(headers: Headers): Promise<Login | null>;
  /** The same, read now, past what is kept (a WebSocket connection keeps its own). */
  fresh(headers: Headers): Promise<Login | null>;
};

export const LOGIN_CACHE_TTL_MS = 1_000;
/** Past this many cookies, the expired ones are dropped as new ones come. */
const SWEEP_OVER = 1_000;

export function createLoginCache(
  auth: Auth,
  accessChanges: AccessChanges,
  tokens: ApiTokenReader,
  ttlMs = LOGIN_CACHE_TTL_MS,
): LoginCache {
  const kept = new Map<string, { login: Login; until: number }>();
  const reading = new Map<string, Promise<Login | null>>();
  let generation = 0; // changes seen so far
  accessChanges.subscribe({ everyone: true }, () => {
    generation += 1;
    kept.clear();
    reading.clear();
  });

  async function read(headers: Headers): Promise<Login | null> {
    const bearer = bearerToken(headers);
    if (bearer === "invalid") return null;
    if (bearer) {
      const grant = await tokens(bearer, headers);
      return grant && { ...grant, loginSessionId: null };
    }
    const session = await auth.api.getSession({ headers }).catch(() => null);
    return session
      ? {
          user: toAppUser(session.user),
          token: null,
          loginSessionId: session.session.id,
          lastsUntil: new Date(session.session.expiresAt).getTime(),
        }
      : null;
  }

  function keep(key: string, login: Login) {
    const now = Date.now();
    if (kept.size >= SWEEP_OVER) for (const [old, entry] of kept) if (now >= entry.until) kept.delete(old);
    kept.set(key, { login, until: Math.min(now + ttlMs, login.lastsUntil) });
  }

  return {
    user(headers) {
      // Keyed apart, so that a cookie's text can never stand for a token's answer or the reverse.
      const authorization = headers.get("authorization");
      const cookie = headers.get("cookie");
      const key = authorization !== null ? `token ${authorization}` : cookie ? `cookie ${cookie}` : null;
      if (!key) return read(headers);
      const entry = kept.get(key);
      if (entry && Date.now() < entry.until) return Promise.resolve(entry.login);
      const pending = reading.get(key);
      if (pending) return pending;
      const startedIn = generation;
      const promise = read(headers).then((login) => {
        if (reading.get(key) === promise) reading.delete(key);
        if (login && generation === startedIn) keep(key, login);
        return login;
      });
      reading.set(key, promise);
      return promise;
    },
    fresh: read,
  };
}
