import { type Dispatcher, fetch } from "undici";
import { z } from "zod";
import type { Forge } from "@/lib/git-forges";
import { GitError } from "./errors";

// The few forge REST calls Tandem makes itself (not the agent's github_api/gitlab_api): open a pull
// (merge) request, read a pull request's branches, comment on an issue or a pull request. GitHub,
// GitLab and Gitea/Forgejo, each with its own paths, auth header and answer; the token is the one the
// caller chose (a person's, or the team's for work a forge comment started).

export type RestForge = "github" | "gitlab" | "gitea";
/**
 * How the server connects to a forge the server's admin did not configure: only to addresses
 * that are not its own network's (the remote is a project admin's choice), and why one was refused.
 */
export type ForgeConnections = { dispatcher: Dispatcher; refusal(error: unknown): string | null };
export type ForgeTarget = { kind: RestForge; api: URL; repo: string; token: string; connections?: ForgeConnections };

/** The most of a forge's answer that is read: its few fields fit in far less. */
const MAX_ANSWER_BYTES = 2 * 1024 * 1024;

const NAMES: Record<RestForge, string> = { github: "GitHub", gitlab: "GitLab", gitea: "Gitea" };

/** The REST root: the configured one, else GitHub's public API or Enterprise's /api/v3, GitLab's /api/v4, Gitea's /api/v1. */
export function restRoot(forge: Forge & { kind: RestForge }, remote: URL): URL {
  const root = forge.api
    ? forge.api
    : forge.kind === "github"
      ? remote.hostname === "github.com"
        ? "https://api.github.com"
        : `${remote.origin}/api/v3`
      : `${remote.origin}/api/${forge.kind === "gitlab" ? "v4" : "v1"}`;
  return new URL(root.endsWith("/") ? root : `${root}/`);
}

const isRest = (kind: string): kind is RestForge => kind === "github" || kind === "gitlab" || kind === "gitea";
export const restForge = (forge: Forge | null): (Forge & { kind: RestForge }) | null =>
  forge && isRest(forge.kind) ? (forge as Forge & { kind: RestForge }) : null;

async function call(target: ForgeTarget, method: "GET" | "POST", path: string, body?: unknown): Promise<unknown> {
  const name = NAMES[target.kind];
  const url = new URL(path.replace(/^\//, ""), target.api);
  const response = await fetch(url, {
    method,
    headers: {
      authorization: target.kind === "gitea" ? `token ${target.token}` : `Bearer ${target.token}`,
      accept: target.kind === "github" ? "application/vnd.github+json" : "application/json",
      "user-agent": "Tandem",
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(20_000),
    redirect: "error",
    ...(target.connections ? { dispatcher: target.connections.dispatcher } : {}),
  }).catch((error: unknown) => {
    const refused = target.connections?.refusal(error);
    throw new GitError(
      "HOST_NOT_ALLOWED",
      refused ?? `Could not reach ${target.api.host}: ${(error as Error).message}`,
    );
  });
  const json = await answerJson(response.body);
  if (response.status === 401 || response.status === 403)
    throw new GitError("AUTH_FAILED", `${name} refused the token: it needs write access to ${target.repo}.`);
  if (!response.ok) {
    const reason =
      typeof json === "object" && json && "message" in json
        ? String((json as { message: unknown }).message)
        : `HTTP ${response.status}`;
    throw new GitError("FAILED", `${name} answered ${method} ${url.pathname}: ${reason}`);
  }
  return json;
}

/** The answer's JSON, or null when it is not JSON, broke off, or is longer than any answer Tandem reads. */
async function answerJson(body: AsyncIterable<Uint8Array> | null): Promise<unknown> {
  if (!body) return null;
  try {
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of body) {
      size += chunk.length;
      if (size > MAX_ANSWER_BYTES) return null;
      chunks.push(chunk);
    }
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    return null;
  }
}

const project = (repo: string) => `projects/${encodeURIComponent(repo)}`;
// Only a web address is shown as a link to people.
const webUrl = z.url({ protocol: /^https?$/ });
const opened = z.union([
  z.object({ html_url: webUrl, number: z.number().int() }).transform((o) => ({ url: o.html_url, number: o.number })),
  z.object({ web_url: webUrl, iid: z.number().int() }).transform((o) => ({ url: o.web_url, number: o.iid })),
]);

/** Opens a pull request (GitLab: a merge request) from `head` into `base`. */
export async function openPullRequest(
  target: ForgeTarget,
  input: { head: string; base: string; title: string; body: string },
): Promise<{ url: string; number: number }> {
  const json =
    target.kind === "gitlab"
      ? await call(target, "POST", `${project(target.repo)}/merge_requests`, {
          source_branch: input.head,
          target_branch: input.base,
          title: input.title,
          description: input.body,
        })
      : await call(target, "POST", `repos/${target.repo}/pulls`, input);
  const parsed = opened.safeParse(json);
  if (!parsed.success)
    throw new GitError("FAILED", `${NAMES[target.kind]}'s answer did not name the new pull request.`);
  return parsed.data;
}

const githubPull = z.object({
  head: z.object({ ref: z.string(), repo: z.object({ full_name: z.string() }).nullable() }),
  base: z.object({ ref: z.string() }),
});
const gitlabMerge = z.object({
  source_branch: z.string(),
  target_branch: z.string(),
  source_project_id: z.number(),
  target_project_id: z.number(),
});

function answer<T>(schema: z.ZodType<T>, json: unknown): T {
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new GitError("FAILED", "The forge's answer did not describe the pull request.");
  return parsed.data;
}

/** A pull request's branch and base, and whether its branch lives in this repository (not a fork's). */
export async function pullRequestBranches(
  target: ForgeTarget,
  number: number,
): Promise<{ head: string; base: string; sameRepository: boolean }> {
  if (target.kind === "gitlab") {
    const mr = answer(gitlabMerge, await call(target, "GET", `${project(target.repo)}/merge_requests/${number}`));
    return {
      head: mr.source_branch,
      base: mr.target_branch,
      sameRepository: mr.source_project_id === mr.target_project_id,
    };
  }
  const pr = answer(githubPull, await call(target, "GET", `repos/${target.repo}/pulls/${number}`));
  return {
    head: pr.head.ref,
    base: pr.base.ref,
    sameRepository: pr.head.repo?.full_name.toLowerCase() === target.repo.toLowerCase(),
  };
}

const signedIn = z.union([
  z.object({ login: z.string().min(1) }).transform((o) => o.login),
  z.object({ username: z.string().min(1) }).transform((o) => o.username),
]);

/** The forge login a token signs in as (GitHub's and Gitea's `login`, GitLab's `username`), asked of the forge. */
export async function tokenLogin(target: ForgeTarget): Promise<string> {
  return answer(signedIn, await call(target, "GET", "user"));
}

/** Comments on issue or pull request `number`. */
export async function postComment(
  target: ForgeTarget,
  on: { kind: "issue" | "pull"; number: number },
  body: string,
): Promise<void> {
  const path =
    target.kind === "gitlab"
      ? `${project(target.repo)}/${on.kind === "issue" ? "issues" : "merge_requests"}/${on.number}/notes`
      : `repos/${target.repo}/issues/${on.number}/comments`;
  await call(target, "POST", path, { body });
}
