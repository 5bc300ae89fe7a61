import { randomBytes } from "node:crypto";
import type { Db } from "@/server/db/client";
import { hashToken } from "@/server/db/tokens";
import { createApiToken, findLiveApiToken, touchApiToken } from "@/server/db/repositories/api-tokens";
import { createTeamBot, type AppUser } from "@/server/db/repositories/users";
import { requestOrigin } from "@/server/auth/request-origin";
import { API_TOKEN_PREFIX, type ApiTokenScope } from "@/lib/api-tokens";

// Personal API tokens on the wire: `Authorization: Bearer tandem_…`. A request that presents one is
// that token's person, limited to its scopes (server/api/access.ts decides with them); its cookie,
// if any, is ignored, so a request is never half token and half browser login.

/** What a token grants beside its person: checked by every access decision of a call made with it. */
export type TokenGrant = { id: string; scopes: readonly ApiTokenScope[] };

const TOKEN_SHAPE = new RegExp(`^${API_TOKEN_PREFIX}[A-Za-z0-9_-]{43}$`);
/** How often a token's "last used" is written: enough to tell a live token from a forgotten one. */
const TOUCH_EVERY_MS = 60_000;

/**
 * The bearer token of these headers: its text, `invalid` when an Authorization header is there but
 * is not one of ours (refused rather than read as no token), or null without one.
 */
export function bearerToken(headers: Headers): string | "invalid" | null {
  const value = headers.get("authorization");
  if (value === null) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(value);
  return match && TOKEN_SHAPE.test(match[1]) ? match[1] : "invalid";
}

export async function issueApiToken(
  db: Db,
  input: { userId: string; name: string; scopes: ApiTokenScope[]; expiresInDays: number },
  now = new Date(),
) {
  const token = API_TOKEN_PREFIX + randomBytes(32).toString("base64url");
  const expiresAt = new Date(now.getTime() + input.expiresInDays * 86_400_000);
  const row = await createApiToken(db, {
    userId: input.userId,
    name: input.name,
    scopes: input.scopes,
    expiresAt,
    tokenHash: hashToken(token),
  });
  return { token, row };
}

/**
 * A team token: the token of an account of the team's own, a member of that team alone with the
 * role its scopes need (admin, member, or viewer for reading), so that it reaches the team's
 * projects by the team's rules and nothing of any person's.
 */
export async function issueTeamToken(
  db: Db,
  input: { teamId: string; name: string; scopes: ApiTokenScope[]; expiresInDays: number },
  now = new Date(),
) {
  const role = input.scopes.includes("admin")
    ? "admin"
    : input.scopes.includes("write") || input.scopes.includes("run")
      ? "member"
      : "viewer";
  const bot = await createTeamBot(db, { teamId: input.teamId, name: `${input.name} (team token)`, role });
  return issueApiToken(
    db,
    { userId: bot.id, name: input.name, scopes: input.scopes, expiresInDays: input.expiresInDays },
    now,
  );
}

/**
 * `headers`: the request's, so that the audit log says where a token was used from (none: an
 * in-process caller). `lastsUntil`: the token's expiry (milliseconds since the epoch).
 */
export type ApiTokenReader = (
  token: string,
  headers?: Headers,
) => Promise<{ user: AppUser; token: TokenGrant; lastsUntil: number } | null>;

export function createApiTokenReader(db: Db): ApiTokenReader {
  const touched = new Map<string, number>();
  return async (token, headers = new Headers()) => {
    const now = new Date();
    const found = await findLiveApiToken(db, hashToken(token), now);
    if (!found) return null;
    const last = touched.get(found.id) ?? 0;
    if (now.getTime() - last >= TOUCH_EVERY_MS) {
      touched.set(found.id, now.getTime());
      // Best effort: a lost "last used" stamp must not fail the call it describes.
      const origin = requestOrigin(headers, { user: found.user, tokenId: found.id });
      touchApiToken(db, found.id, now, origin).catch(() => touched.delete(found.id));
    }
    return { user: found.user, token: { id: found.id, scopes: found.scopes }, lastsUntil: found.expiresAt.getTime() };
  };
}
