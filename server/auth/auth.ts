import { betterAuth } from "better-auth";
import { prismaAdapter } from "better-auth/adapters/prisma";
import { APIError } from "better-auth/api";
import type { Db } from "@/server/db/client";
import { checkInvite, consumeInvite } from "@/server/db/repositories/invites";
import { getSetting } from "@/server/db/repositories/settings";
import { countUsers, promoteIfFirstUser } from "@/server/db/repositories/users";
import {
  claimTeamInvite,
  ensurePersonalTeam,
  joinByClaimedInvite,
  type TeamInviteClaim,
} from "@/server/db/repositories/teams";

// The server sets this header from the socket's address and drops any value a client sent, so
// rate limits key on the real peer (server/index.ts).
export const CLIENT_IP_HEADER = "x-tandem-client-ip";

/** What a sign-up may carry beside name, email and password: an admin's sign-up link or a team's invitation link. */
type SignUpBody = { inviteToken?: unknown; teamInviteToken?: unknown };

export type AuthOptions = {
  db: Db;
  secret: string;
  publicUrl?: string;
  secureCookies: boolean;
  /** A login session ended (sign-out, revoked): its open connections lose its rights (server/bus/access-changes.ts). */
  onSessionEnded?: (userId: string) => void;
};

// A team invitation a sign-up claimed, until its account exists: the sign-up's before and after
// hooks get the same endpoint context.
const claims = new WeakMap<object, TeamInviteClaim>();

export function createAuth({ db, secret, publicUrl, secureCookies, onSessionEnded }: AuthOptions) {
  return betterAuth({
    appName: "Tandem",
    secret,
    // Without a public URL, trust the request's own host: the origin check then means same-origin.
    baseURL: publicUrl ?? { allowedHosts: ["*"], fallback: "http://localhost:3000" },
    trustedOrigins: publicUrl ? [new URL(publicUrl).origin] : sameOrigin,
    database: prismaAdapter(db, { provider: "postgresql" }),
    emailAndPassword: { enabled: true, minPasswordLength: 8, autoSignIn: true },
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
        "/sign-up/email": { window: 60, max: 5 },
      },
    },
    advanced: {
      ipAddress: { ipAddressHeaders: [CLIENT_IP_HEADER] },
      useSecureCookies: secureCookies,
      defaultCookieAttributes: { httpOnly: true, sameSite: "lax", secure: secureCookies },
    },
    databaseHooks: {
      session: {
        delete: {
          after: async (session) => onSessionEnded?.(session.userId),
        },
      },
      user: {
        create: {
          before: async (user, ctx) => {
            if ((await countUsers(db)) === 0) return;
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

function sameOrigin(request?: Request): string[] {
  const host = request?.headers.get("host");
  return host ? [`http://${host}`, `https://${host}`] : [];
}
