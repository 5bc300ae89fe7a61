import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

// Who may see a preview: a member of the project, who reaches the preview's origin through a
// one-time entry link the IDE made for them (signed, 60 s, used once) and from then on carries a
// preview session cookie of that origin alone (signed, 8 h); or anyone holding a public link of
// the port, whose session names the link. Nothing of the person's Tandem login crosses to the
// preview's origin: the session names the person or the link, the project and the port, and, for
// a person, the login session's id the entry link was made under (never its cookie), so that
// each request checks again that the person may still open the port and is still signed in
// there, or that the link is still live (preview-server.ts, server/services/preview-gate.ts).

/**
 * What a person's preview session lasts as long as: the Tandem login session the IDE's entry link
 * was made under (its id, which opens nothing by itself), or, in the agent's own browser, the agent
 * session whose browser holds it.
 */
export type PreviewBinding = { loginSessionId: string } | { agentSessionId: string };

/** Exactly one of `userId` (a member's session, with what it is bound to) and `linkId` (a public link's). */
export type PreviewGrant = {
  projectId: string;
  port: number;
  exp: number;
  nonce: string;
  /** Where the entry link leads on the preview's origin (a path of its own). */
  path?: string;
} & (
  | { userId: string; by: PreviewBinding; linkId?: undefined }
  | { linkId: string; userId?: undefined; by?: undefined }
);

/** A binding as a grant carries it: exactly one non-empty id (a session signed before bindings existed has none). */
const isBinding = (by: unknown): by is PreviewBinding => {
  if (typeof by !== "object" || by === null) return false;
  const keys = Object.keys(by);
  const value = Object.values(by)[0];
  return (
    keys.length === 1 &&
    (keys[0] === "loginSessionId" || keys[0] === "agentSessionId") &&
    typeof value === "string" &&
    value !== ""
  );
};

/** The same binding as a key: two sessions of one person from two logins are held apart. */
export const bindingKey = (by: PreviewBinding) =>
  "loginSessionId" in by ? `login:${by.loginSessionId}` : `agent:${by.agentSessionId}`;

/** How long an entry link works, and a preview session lasts. */
const ENTRY_MS = 60_000;
const SESSION_MS = 8 * 60 * 60_000;
/** How many verified session cookies are remembered (the oldest goes first). */
const VERIFIED_KEPT = 1024;

/** A path on the preview's own origin: `/x`, never `//host` or `/\\host`, which browsers take for another host. */
export const isLocalPath = (path: string) => /^\/(?![/\\])[^\s]*$/.test(path) && path.length <= 2048;

export type PreviewAccess = ReturnType<typeof createPreviewAccess>;

export function createPreviewAccess(secret: string, now: () => number = Date.now) {
  const key = createHmac("sha256", secret).update("tandem preview access v1").digest();
  const used = new Map<string, number>();
  const verified = new Map<string, PreviewGrant>();

  const sign = (kind: "entry" | "session", grant: PreviewGrant) => {
    const payload = Buffer.from(JSON.stringify(grant)).toString("base64url");
    const mac = createHmac("sha256", key).update(`${kind}.${payload}`).digest("base64url");
    return `${payload}.${mac}`;
  };

  const verify = (kind: "entry" | "session", token: string, projectId: string, port: number): PreviewGrant | null => {
    const [payload, mac, extra] = token.split(".");
    if (!payload || !mac || extra !== undefined) return null;
    const expected = createHmac("sha256", key).update(`${kind}.${payload}`).digest();
    const given = Buffer.from(mac, "base64url");
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    let grant: PreviewGrant;
    try {
      grant = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as PreviewGrant;
    } catch {
      return null;
    }
    // Bound to exactly the project and port it was made for: a link for one port opens no other.
    if (grant.projectId !== projectId || grant.port !== port || !(grant.exp > now())) return null;
    // A person's session names what it lasts as long as; one that does not opens nothing.
    if (grant.linkId === undefined && !isBinding(grant.by)) return null;
    return grant;
  };

  const forget = () => {
    for (const [nonce, exp] of used) if (exp <= now()) used.delete(nonce);
  };

  return {
    /** The token of a one-time entry link for this person to this project's port, bound to `by`. */
    entryToken(projectId: string, port: number, userId: string, by: PreviewBinding, path = "/"): string {
      if (!isLocalPath(path)) throw new Error("a preview path starts with a single /");
      if (!isBinding(by)) throw new Error("a person's preview is bound to a login or an agent session");
      const nonce = randomBytes(16).toString("hex");
      return sign("entry", { projectId, port, userId, by, exp: now() + ENTRY_MS, nonce, path });
    },
    /**
     * The preview session an entry token opens, once on this instance; null when it is not valid
     * (any more). `ticket` is what the caller spends where every instance sees it
     * (PreviewServerDeps.spendEntry) so that it opens once in a cluster too.
     */
    redeem(
      token: string,
      projectId: string,
      port: number,
    ): { cookie: string; grant: PreviewGrant; path: string; ticket: { nonce: string; exp: number } } | null {
      forget();
      const grant = verify("entry", token, projectId, port);
      if (!grant?.userId || used.has(grant.nonce)) return null;
      used.set(grant.nonce, grant.exp);
      const { path: _path, ...kept } = grant;
      const session = { ...kept, exp: now() + SESSION_MS, nonce: randomBytes(16).toString("hex") };
      return {
        cookie: sign("session", session),
        grant: session,
        path: grant.path ?? "/",
        ticket: { nonce: grant.nonce, exp: grant.exp },
      };
    },
    /** The preview session a live public link opens; it ends with the link, if not before. */
    linkSession(link: { id: string; projectId: string; port: number; expiresAt: Date }): string {
      const exp = Math.min(link.expiresAt.getTime(), now() + SESSION_MS);
      const nonce = randomBytes(16).toString("hex");
      return sign("session", { projectId: link.projectId, port: link.port, linkId: link.id, exp, nonce });
    },
    /** The session a preview cookie carries for this project's port, or null. */
    session(cookie: string, projectId: string, port: number): PreviewGrant | null {
      // Verified once per cookie, not on each of a page's many requests (the MAC led bench:preview's profile).
      const known = verified.get(cookie);
      if (known && known.projectId === projectId && known.port === port && known.exp > now()) return known;
      const grant = verify("session", cookie, projectId, port);
      if (grant) {
        if (verified.size >= VERIFIED_KEPT) verified.delete(verified.keys().next().value!);
        verified.set(cookie, grant);
      }
      return grant;
    },
  };
}

/**
 * Entry links spent in this process alone: for one instance without a shared database (tests,
 * the benchmark). A server spends them in the database (server/services/preview-gate.ts).
 */
export function spendInMemory(): (entry: { nonce: string; exp: number }) => Promise<boolean> {
  const spent = new Map<string, number>();
  return async ({ nonce, exp }) => {
    for (const [known, until] of spent) if (until <= Date.now()) spent.delete(known);
    if (spent.has(nonce)) return false;
    spent.set(nonce, exp);
    return true;
  };
}
