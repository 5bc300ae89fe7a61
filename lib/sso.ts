// The provider id of single sign-on (better-auth registers it; its callback is /api/auth/callback/sso).
export const SSO_PROVIDER_ID = "sso";
