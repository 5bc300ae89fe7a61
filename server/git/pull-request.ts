import type { Forge, ForgeKind, Forges } from "@/lib/git-forges";
import { GitError } from "./errors";
import { type ForgeConnections, openPullRequest, restForge, restRoot } from "./forge-rest";

const KNOWN: Forges = {
  "github.com": { kind: "github", api: "https://api.github.com" },
  "gitlab.com": { kind: "gitlab" },
  "bitbucket.org": { kind: "bitbucket" },
  "codeberg.org": { kind: "gitea" },
};

export const FORGE_KINDS = ["github", "gitlab", "gitea", "bitbucket"] as const satisfies readonly ForgeKind[];

/**
 * The server's forges, and the one a project admin chose for the project's remote (a self-hosted
 * GitLab, Gitea or Forgejo): the server's configuration and the well-known hosts come first. A
 * chosen GitHub kind gets its API on the remote's own origin (GitHub Enterprise's /api/v3), so a
 * person's token for that host never goes anywhere else.
 */
export function withProjectForge(configured: Forges, remote: URL, chosen: string | null): Forges {
  const kind = FORGE_KINDS.find((k) => k === chosen);
  if (!kind || configured[remote.host] || configured[remote.hostname] || KNOWN[remote.host]) return configured;
  return { ...configured, [remote.host]: kind === "github" ? { kind, api: `${remote.origin}/api/v3` } : { kind } };
}

export function forgeOf(url: URL, configured: Forges): Forge | null {
  // A host configured without a port stands for that host on any port.
  const found = configured[url.host] ?? configured[url.hostname] ?? KNOWN[url.host];
  if (found) return found;
  const guess = (["github", "gitlab", "bitbucket", "gitea", "forgejo"] as const).find((name) =>
    url.hostname.includes(name),
  );
  if (!guess) return null;
  return guess === "github"
    ? { kind: "github", api: `${url.origin}/api/v3` }
    : { kind: guess === "forgejo" ? "gitea" : guess };
}

/** owner/repo of a remote URL such as https://host/owner/repo.git. */
export function repoPath(url: URL): string | null {
  const trimmed = url.pathname.replace(/^\/+|\/+$/g, "").replace(/\.git$/, "");
  return trimmed.includes("/") ? trimmed : null;
}

/** Where a person opens a pull request for `branch` in the browser, or null for an unknown host. */
export function pullRequestLink(remote: string, branch: string, forges: Forges): string | null {
  const url = new URL(remote);
  const forge = forgeOf(url, forges);
  const repo = repoPath(url);
  if (!forge || !repo) return null;
  const base = `${url.origin}/${repo}`;
  const b = encodeURIComponent(branch);
  switch (forge.kind) {
    case "github":
      return `${base}/pull/new/${b}`;
    case "gitlab":
      return `${base}/-/merge_requests/new?merge_request%5Bsource_branch%5D=${b}`;
    case "bitbucket":
      return `${base}/pull-requests/new?source=${b}`;
    case "gitea":
      return `${base}/compare/${b}`;
  }
}

/**
 * Opens a pull request (GitLab: a merge request) through the forge's REST API with `token`: GitHub,
 * GitLab and Gitea/Forgejo hosts; another forge's is opened by hand from pullRequestLink's page.
 */
export async function openForgePullRequest(input: {
  remote: string;
  forges: Forges;
  token: string;
  head: string;
  base: string;
  title: string;
  body: string;
  connections?: ForgeConnections;
}): Promise<{ url: string; number: number }> {
  const url = new URL(input.remote);
  const forge = restForge(forgeOf(url, input.forges));
  const repo = repoPath(url);
  if (!forge || !repo)
    throw new GitError(
      "BAD_INPUT",
      `Tandem opens pull requests through the API on GitHub, GitLab and Gitea hosts; use the link for ${url.host}.`,
    );
  return openPullRequest(
    { kind: forge.kind, api: restRoot(forge, url), repo, token: input.token, connections: input.connections },
    { head: input.head, base: input.base, title: input.title, body: input.body },
  );
}
