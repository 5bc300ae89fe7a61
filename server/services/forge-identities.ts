import { createHash } from "node:crypto";
import { GitError } from "@/server/git/errors";
import { type ForgeTarget, tokenLogin } from "@/server/git/forge-rest";

// Whom each token signs in as on its forge (server/services/forge-requests.ts), asked of the forge
// once in a while rather than for each comment: comments made up by whoever holds GitLab's token
// (sent in every delivery) would otherwise each spend a call of the team's and a member's token,
// and their rate limits. By a hash of the API and the token; an answer for a few minutes, a
// refusal or no answer for one.

/** How long the forge's answer is kept; a failed one (a refused token, no answer). */
const IDENTITY_MS = 5 * 60_000;
const IDENTITY_FAILED_MS = 60_000;
const IDENTITIES_KEPT = 1000;

/** The login a token signs in as: null when the forge refused the token, undefined when it did not answer. */
export type SignsInAs = (target: ForgeTarget) => Promise<string | null | undefined>;

export function createForgeIdentities(): SignsInAs {
  const identities = new Map<string, { login: Promise<string | null | undefined>; until: number }>();
  return (target) => {
    const key = createHash("sha256").update(`${target.api.href}\n${target.token}`).digest("base64url");
    const kept = identities.get(key);
    if (kept && kept.until > Date.now()) return kept.login;
    const login = tokenLogin(target).catch((error: unknown) =>
      error instanceof GitError && error.code === "AUTH_FAILED" ? null : undefined,
    );
    const entry = { login, until: Date.now() + IDENTITY_MS };
    identities.delete(key);
    identities.set(key, entry);
    void entry.login.then((login) => {
      if (typeof login !== "string") entry.until = Math.min(entry.until, Date.now() + IDENTITY_FAILED_MS);
    });
    if (identities.size > IDENTITIES_KEPT) identities.delete(identities.keys().next().value!);
    return entry.login;
  };
}
