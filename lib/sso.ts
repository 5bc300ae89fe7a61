// The provider id of single sign-on (better-auth registers it; its callback is /api/auth/callback/sso).
export const SSO_PROVIDER_ID = "sso";

/** The sign-in page's `?error=` when single sign-on worked but the person has no account and may not get one. */
export const SSO_NOT_ADMITTED = "sso_not_admitted";

/** Single sign-on as the admin configured it (server/env.ts reads it; server/auth/auth.ts uses it). */
export type SsoConfig = {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** What the sign-in button says: "Sign in with <name>". */
  name: string;
  /** Email domains (lower case) whose people get an account at their first sign-in. */
  allowedDomains: string[];
};
