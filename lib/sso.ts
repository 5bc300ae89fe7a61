// The provider id of single sign-on (better-auth registers it; its callback is /api/auth/callback/sso).
export const SSO_PROVIDER_ID = "sso";

/** The sign-in page's `?error=` when single sign-on worked but the person has no account and may not get one. */
export const SSO_NOT_ADMITTED = "sso_not_admitted";

/** The sign-in page's `?error=` when an admin disabled the account. */
export const ACCOUNT_DISABLED = "account_disabled";

export const SSO_TEAM_ROLES = ["owner", "admin", "member", "viewer"] as const;
export type SsoTeamRole = (typeof SSO_TEAM_ROLES)[number];

/** One provider group that makes its people members of a team with a role. */
export type SsoTeamGroup = { group: string; team: string; role: SsoTeamRole };

/** Single sign-on as the admin configured it (server/env/ reads it; server/auth/auth.ts uses it). */
export type SsoConfig = {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** What the sign-in button says: "Sign in with <name>". */
  name: string;
  /** Email domains (lower case) whose people get an account at their first sign-in. */
  allowedDomains: string[];
  /** The claim of the ID token (or user info) that lists the person's groups. */
  groupsClaim: string;
  /** Groups that make their people members of teams; the teams named here follow the provider. */
  teamGroups: SsoTeamGroup[];
  /** Groups whose people are the instance's admins; when set, everyone else who signs on is not. */
  adminGroups: string[];
};

/**
 * `platform=Platform:member, platform-leads=Platform:admin` as group mappings. The role follows the
 * last colon, so a team's name may hold one. Throws with what is wrong, for server/env/ to show.
 */
export function parseTeamGroups(text: string): SsoTeamGroup[] {
  return text
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      const match = /^([^=]+)=(.+):([a-z]+)$/.exec(entry);
      const role = match?.[3] as SsoTeamRole | undefined;
      if (!match || !role || !SSO_TEAM_ROLES.includes(role) || !match[2].trim())
        throw new Error(`"${entry}" is not group=Team name:role (role one of ${SSO_TEAM_ROLES.join(", ")})`);
      return { group: match[1].trim(), team: match[2].trim(), role };
    });
}

/** The group names of a claim's value: a list of names, or one name. Anything else is no group. */
export function groupsOf(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.filter((group): group is string => typeof group === "string");
  return [];
}
