// Git hosts Tandem opens pull requests on, as configured (TANDEM_GIT_FORGES, read by server/env/);
// server/git/pull-request.ts makes the links and API calls.

export type ForgeKind = "github" | "gitlab" | "bitbucket" | "gitea";
/** A git host Tandem knows how to open pull requests on; `api` is the REST base (pull requests and `@tandem` comments: GitHub, GitLab, Gitea; github_api and gitlab_api). */
export type Forge = { kind: ForgeKind; api?: string };
export type Forges = Record<string, Forge>;

/** `host=kind[@api]` pairs, comma-separated (TANDEM_GIT_FORGES), e.g. `git.acme.dev=gitea,ghe.acme.dev=github@https://ghe.acme.dev/api/v3`. */
export function parseForges(value: string | undefined): Forges {
  const forges: Forges = {};
  for (const entry of (value ?? "")
    .split(",")
    .map((e) => e.trim())
    .filter(Boolean)) {
    const match = /^([^=\s]+)=(github|gitlab|bitbucket|gitea|forgejo)(?:@(\S+))?$/.exec(entry);
    if (!match)
      throw new Error(
        `'${entry}' is not host=kind or host=kind@api-url (kinds: github, gitlab, bitbucket, gitea, forgejo)`,
      );
    forges[match[1]!] = {
      kind: match[2] === "forgejo" ? "gitea" : (match[2] as ForgeKind),
      ...(match[3] ? { api: match[3] } : {}),
    };
  }
  return forges;
}
