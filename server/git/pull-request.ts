import { z } from "zod";
import type { Forge, ForgeKind, Forges } from "@/lib/git-forges";
import { GitError } from "./errors";

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
function repoPath(url: URL): string | null {
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

// Only a web address is shown as a link to people.
const created = z.object({ html_url: z.url({ protocol: /^https?$/ }), number: z.number().int() });

/** Opens a pull request through GitHub's REST API (POST /repos/{owner}/{repo}/pulls) with the person's token. */
export async function openGitHubPullRequest(input: {
  remote: string;
  forges: Forges;
  token: string;
  head: string;
  base: string;
  title: string;
  body: string;
}): Promise<{ url: string; number: number }> {
  const url = new URL(input.remote);
  const forge = forgeOf(url, input.forges);
  const repo = repoPath(url);
  if (forge?.kind !== "github" || !forge.api || !repo)
    throw new GitError(
      "BAD_INPUT",
      `Tandem opens pull requests through the API only on GitHub hosts; use the link for ${url.host}.`,
    );
  const response = await fetch(`${forge.api.replace(/\/$/, "")}/repos/${repo}/pulls`, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${input.token}`,
      Accept: "application/vnd.github+json",
      "Content-Type": "application/json",
      "User-Agent": "Tandem",
    },
    body: JSON.stringify({ title: input.title, head: input.head, base: input.base, body: input.body }),
    signal: AbortSignal.timeout(20_000),
  }).catch((error: unknown) => {
    throw new GitError("HOST_NOT_ALLOWED", `Could not reach ${forge.api}: ${(error as Error).message}`);
  });
  const json: unknown = await response.json().catch(() => null);
  if (response.status === 401 || response.status === 403)
    throw new GitError(
      "AUTH_FAILED",
      "GitHub refused the token: it needs the right to open pull requests on this repository.",
    );
  if (!response.ok) {
    const message =
      typeof json === "object" && json && "message" in json
        ? String((json as { message: unknown }).message)
        : `HTTP ${response.status}`;
    throw new GitError("FAILED", `GitHub did not open the pull request: ${message}`);
  }
  const parsed = created.safeParse(json);
  if (!parsed.success) throw new GitError("FAILED", "GitHub's answer did not name the new pull request.");
  return { url: parsed.data.html_url, number: parsed.data.number };
}
