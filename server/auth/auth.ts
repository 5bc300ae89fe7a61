import { betterAuth } from "better-auth";
import { prismaAdapter } from "better-auth/adapters/prisma";
import { APIError, createAuthMiddleware, isAPIError } from "better-auth/api";
import { genericOAuth } from "better-auth/plugins/generic-oauth";
import { ACCOUNT_DISABLED, SSO_NOT_ADMITTED, SSO_PROVIDER_ID, groupsOf, type SsoConfig } from "@/lib/sso";
import { applySsoGroups } from "@/server/auth/sso-groups";
import type { Db } from "@/server/db/client";
import { checkInvite, consumeInvite } from "@/server/db/repositories/invites";
import { getSetting } from "@/server/db/repositories/settings";
import { countUsers, findUser, maySignIn, promoteIfFirstUser } from "@/server/db/repositories/users";
import { recordAudit } from "@/server/db/repositories/audit-events";
import { CLIENT_IP_HEADER, requestOrigin } from "@/server/auth/request-origin";
import {
  claimTeamInvite,
  ensurePersonalTeam,
  joinByClaimedInvite,
  type TeamInviteClaim,
} from "@/server/db/repositories/teams";

export { CLIENT_IP_HEADER };

/** What a sign-up may carry beside name, email and password: an admin's sign-up link or a team's invitation link. */
type SignUpBody = { inviteToken?: unknown; teamInviteToken?: unknown };

export type AuthOptions = {
  db: Db;
  secret: string;
  publicUrl?: string;
  secureCookies: boolean;
  /**
   * A person's access changed: a login session ended (sign-out, revoked) or a sign-on changed their
   * teams or role. Their open connections re-check (server/bus/access-changes.ts).
   */
  onAccessChanged?: (userId: string) => void;
  /** Sign-in with the organisation's OpenID provider; absent: email and password only. */
  sso?: SsoConfig;
  /** Email and password sign-up and sign-in (default on; off only beside single sign-on). */
  passwordSignIn?: boolean;
};

// A team invitation a sign-up claimed, until its account exists: the sign-up's before and after
// hooks get the same endpoint context.
const claims = new WeakMap<object, TeamInviteClaim>();

/** How long the groups of a sign-on's profile wait for its login session to be made. */
const GROUPS_KEPT_MS = 60_000;

export function createAuth({
  db,
  secret,
  publicUrl,
  secureCookies,
  onAccessChanged,
  sso,
  passwordSignIn = true,
}: AuthOptions) {
  // The groups of a sign-on in progress, by verified address: better-auth reads the profile before
  // it knows the account, and the login session's hook then applies them (server/auth/sso-groups.ts).
  const signOnGroups = new Map<string, { groups: string[]; at: number }>();
  const takeGroups = (email: string) => {
    const now = Date.now();
    for (const [key, entry] of signOnGroups) if (now - entry.at > GROUPS_KEPT_MS) signOnGroups.delete(key);
    const entry = signOnGroups.get(email.toLowerCase());
    signOnGroups.delete(email.toLowerCase());
    return entry?.groups ?? [];
  };
  return betterAuth({
    appName: "Tandem",
    secret,
    // Without a public URL, trust the request's own host: the origin check then means same-origin.
    baseURL: publicUrl ?? { allowedHosts: ["*"], fallback: "http://localhost:3000" },
    trustedOrigins: publicUrl ? [new URL(publicUrl).origin] : sameOrigin,
    database: prismaAdapter(db, { provider: "postgresql" }),
    emailAndPassword: { enabled: passwordSignIn, minPasswordLength: 8, autoSignIn: true },
    plugins: sso ? [ssoPlugin(sso, (email, groups) => signOnGroups.set(email, { groups, at: Date.now() }))] : [],
    // A first sign-on joins an existing account of the same address only when the provider says it
    // verified it: directories let people edit their own address (then unverified), so a provider
    // is never "trusted" past its email_verified, which would hand any account to whoever typed
    // its address into their own profile.
    account: { accountLinking: { enabled: true, trustedProviders: [] } },
    session: { modelName: "loginSession", expiresIn: 60 * 60 * 24 * 30, updateAge: 60 * 60 * 24 },
    user: {
      additionalFields: { role: { type: "string", required: false, defaultValue: "user", input: false } },
    },
    rateLimit: {
      enabled: true,
      storage: "database",
      modelName: "rateLimit",
      window: 60,
      max: 100,
      customRules: {
        "/sign-in/email": { window: 60, max: 5 },
        // Starting a sign-on only redirects to the provider, which guards the credentials; a
        // whole office behind one address signs on at nine (better-auth's default is 3 in 10 s).
        "/sign-in/social": { window: 60, max: 60 },
        "/sign-up/email": { window: 60, max: 5 },
      },
    },
    advanced: {
      ipAddress: { ipAddressHeaders: [CLIENT_IP_HEADER] },
      useSecureCookies: secureCookies,
      defaultCookieAttributes: { httpOnly: true, sameSite: "lax", secure: secureCookies },
    },
    hooks: { after: createAuthMiddleware(async (ctx) => auditSignIn(db, ctx)) },
    databaseHooks: {
      session: {
        create: {
          // A disabled account gets no login, by password or sign-on (its old ones were deleted
          // when it was disabled: server/db/repositories/users.ts), nor does a team's own account.
          before: async (session, ctx) => {
            if (await maySignIn(db, session.userId)) return;
            if (ctx && isSsoCallback(ctx)) throw ctx.redirect(`/sign-in?error=${ACCOUNT_DISABLED}`);
            throw new APIError("FORBIDDEN", { message: "This account is disabled. Ask an admin to enable it." });
          },
          after: async (session, ctx) => {
            if (!sso || !ctx || !isSsoCallback(ctx)) return;
            const user = await findUser(db, session.userId);
            if (user && (await applySsoGroups(db, sso, user.id, takeGroups(user.email)))) onAccessChanged?.(user.id);
          },
        },
        delete: {
          after: async (session, ctx) => {
            onAccessChanged?.(session.userId);
            const origin = requestOrigin(new Headers(ctx?.headers), { user: null });
            await recordAudit(
              db,
              "sign_out",
              { target: session.userId },
              { ...origin, actorId: session.userId, via: "browser" },
            );
          },
        },
      },
      user: {
        create: {
          before: async (user, ctx) => {
            if ((await countUsers(db)) === 0) return;
            // An account made at a first single sign-on: the provider's verified address in one of
            // the allowed domains admits its holder (just-in-time accounts), as does open sign-up;
            // invitations travel in a sign-up form, which single sign-on has not.
            if (sso && ctx && isSsoCallback(ctx)) {
              if (ssoAdmits(sso, user) || (await getSetting(db, "signupMode")) === "open") return;
              // Back to the sign-in page with the reason, rather than the callback's bare 403.
              throw ctx.redirect(`/sign-in?error=${SSO_NOT_ADMITTED}`);
            }
            const body = (ctx?.body ?? {}) as SignUpBody;
            // A team's invitation admits its one holder whatever the sign-up mode, and is used up
            // here, before the account exists: of two sign-ups with one link only one gets in.
            if (ctx && typeof body.teamInviteToken === "string" && body.teamInviteToken) {
              const claim = await claimTeamInvite(db, body.teamInviteToken, user.email);
              if (!claim.ok) throw new APIError("FORBIDDEN", { message: claim.reason });
              claims.set(ctx, claim);
              return;
            }
            if ((await getSetting(db, "signupMode")) === "open") return;
            const token = body.inviteToken;
            if (typeof token !== "string" || !token) {
              throw new APIError("FORBIDDEN", {
                message: "Sign-up on this Tandem is by invitation. Ask an admin for an invitation link.",
              });
            }
            const check = await checkInvite(db, token, user.email);
            if (!check.ok) throw new APIError("FORBIDDEN", { message: check.reason });
            if (!(await consumeInvite(db, check.id))) {
              throw new APIError("FORBIDDEN", { message: "This invitation link has already been used." });
            }
          },
          after: async (user, ctx) => {
            await promoteIfFirstUser(db, user.id);
            await ensurePersonalTeam(db, user);
            const claim = ctx && claims.get(ctx);
            if (claim) await joinByClaimedInvite(db, claim, user.id);
          },
        },
      },
    },
  });
}

export type Auth = ReturnType<typeof createAuth>;

/** What a sign-in endpoint's after-hook sees: the path, the request, what the endpoint returned. */
type SignInContext = {
  path?: string;
  headers?: Headers;
  body?: unknown;
  context: { returned?: unknown; newSession?: { user: { id: string; email: string } } | null };
};

const SIGN_IN_PATHS = ["/sign-in/email", "/sign-up/email", "/oauth2/callback/"];

/** Sign-ins (password, sign-up, single sign-on) and refused ones, with where they came from. */
async function auditSignIn(db: Db, ctx: SignInContext) {
  const path = ctx.path ?? "";
  if (!SIGN_IN_PATHS.some((p) => path.startsWith(p))) return;
  const headers = ctx.headers ?? new Headers();
  const method = path.startsWith("/oauth2/") ? "sso" : path === "/sign-up/email" ? "sign-up" : "password";
  const made = ctx.context.newSession;
  if (made) {
    await recordAudit(db, "sign_in", { target: made.user.id, detail: { method } }, requestOrigin(headers, made));
    return;
  }
  const returned = ctx.context.returned;
  if (!isAPIError(returned) || returned.statusCode === 302) return;
  const email = (ctx.body as { email?: unknown } | undefined)?.email;
  await recordAudit(
    db,
    "sign_in_failed",
    { detail: { method, status: returned.statusCode, reason: returned.message } },
    { ...requestOrigin(headers, { user: null }), actorEmail: typeof email === "string" ? email.slice(0, 200) : null },
  );
}

function ssoPlugin(sso: SsoConfig, onGroups: (email: string, groups: string[]) => void) {
  return genericOAuth({
    config: [
      {
        providerId: SSO_PROVIDER_ID,
        name: sso.name,
        discoveryUrl: `${sso.issuer}/.well-known/openid-configuration`,
        // Identity comes from the ID token's claims: never accept one whose signature was not checked.
        requireIdTokenVerification: true,
        clientId: sso.clientId,
        clientSecret: sso.clientSecret,
        scopes: ["openid", "email", "profile"],
        pkce: true,
        // The profile is the verified ID token's claims (or the user info): its groups are kept
        // for the login session's hook. Nothing of the user's own fields changes.
        mapProfileToUser: (profile) => {
          if (typeof profile.email === "string")
            onGroups(profile.email.toLowerCase(), groupsOf(profile[sso.groupsClaim]));
          return {};
        },
      },
    ],
  });
}

function isSsoCallback(ctx: { path?: string; params?: Record<string, unknown> }): boolean {
  return typeof ctx.path === "string" && ctx.path.startsWith("/callback") && ctx.params?.id === SSO_PROVIDER_ID;
}

function ssoAdmits(sso: SsoConfig, user: { email: string; emailVerified?: boolean }): boolean {
  const domain = user.email.toLowerCase().split("@").pop() ?? "";
  return user.emailVerified === true && sso.allowedDomains.includes(domain);
}

function sameOrigin(request?: Request): string[] {
  const host = request?.headers.get("host");
  return host ? [`http://${host}`, `https://${host}`] : [];
}
