// The provider id of single sign-on (better-auth registers it; its callback is /api/auth/callback/sso).
export const SSO_PROVIDER_ID = "sso";

/** The sign-in page's `?error=` when single sign-on worked but the person has no account and may not get one. */
export const SSO_NOT_ADMITTED = "sso_not_admitted";
