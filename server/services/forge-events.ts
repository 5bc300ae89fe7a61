import { createHmac, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import type { RestForge } from "@/server/git/forge-rest";

// What a forge's webhook delivery says, in GitHub's, GitLab's and Gitea/Forgejo's formats: which
// forge sent it (by its headers), whether it is signed with the project's secret (GitHub and Gitea:
// an HMAC-SHA256 of the body; GitLab: the secret itself as a token), its delivery id, and the new
// comment it carries. Only new comments on issues and pull requests matter; anything else is null.

export type ForgeDelivery = { forge: RestForge; event: string; delivery: string | null; signature: string | null };

/** The forge a request comes from by its event header, with its delivery id and signature; null: none of the three. */
export function forgeDelivery(header: (name: string) => string | null): ForgeDelivery | null {
  const github = header("x-github-event");
  if (github)
    return {
      forge: "github",
      event: github,
      delivery: header("x-github-delivery"),
      signature: header("x-hub-signature-256"),
    };
  const gitlab = header("x-gitlab-event");
  if (gitlab)
    return {
      forge: "gitlab",
      event: gitlab,
      delivery: header("x-gitlab-event-uuid"),
      signature: header("x-gitlab-token"),
    };
  // Forgejo sends both its own headers and Gitea's.
  const gitea = header("x-forgejo-event") ?? header("x-gitea-event");
  if (gitea)
    return {
      forge: "gitea",
      event: gitea,
      delivery: header("x-forgejo-delivery") ?? header("x-gitea-delivery"),
      signature: header("x-forgejo-signature") ?? header("x-gitea-signature"),
    };
  return null;
}

/**
 * The "secret token" GitLab's webhook is given. GitLab signs nothing: it sends the token itself in
 * every delivery's header, where any log or proxy on the way may keep it. So it is not the
 * project's secret, which signs deliveries of any prompt (lib/webhooks.ts), but a token derived
 * from it that opens `@tandem` comments, which only members' count, and nothing else.
 */
export function gitlabToken(secret: string): string {
  return `glwh_${createHmac("sha256", secret).update("tandem: GitLab webhook token").digest("base64url")}`;
}

/** Whether the delivery is signed with `secret` by its forge's scheme, compared in constant time. */
export function signedWith(delivery: ForgeDelivery, secret: string, body: Buffer): boolean {
  if (!delivery.signature) return false;
  const expected =
    delivery.forge === "gitlab"
      ? gitlabToken(secret)
      : `${delivery.forge === "github" ? "sha256=" : ""}${createHmac("sha256", secret).update(body).digest("hex")}`;
  const given = Buffer.from(delivery.signature);
  const wanted = Buffer.from(expected);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

export type ForgeComment = {
  commentId: string;
  body: string;
  login: string;
  /** The forge says a bot (an app) wrote it. */
  bot: boolean;
  createdAt: Date;
  /** owner/name (GitLab: the project's full path). */
  repo: string;
  on: { kind: "issue" | "pull"; number: number; title: string };
  /** An inline comment on a pull request's diff: the file and the line it is on (null: the line left the diff). */
  at?: { path: string; line: number | null };
};

const login = z.string().min(1).max(100);
const when = z
  .string()
  // GitLab writes "2026-11-29 06:00:00 UTC".
  .transform((s) => new Date(s.replace(/^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d) UTC$/, "$1T$2Z")))
  .refine((d) => !Number.isNaN(d.getTime()), "not a date");
const title = z.string().max(1000);

const githubLike = z.object({
  action: z.string(),
  issue: z.object({
    number: z.number().int().positive(),
    title,
    pull_request: z.unknown().optional(),
  }),
  comment: z.object({
    id: z.number().int(),
    body: z.string().max(65_536),
    user: z.object({ login, type: z.string().optional() }),
    created_at: when,
  }),
  repository: z.object({ full_name: z.string().min(3).max(300) }),
});

// An inline comment on a pull request's diff (GitHub's pull_request_review_comment event).
const githubReviewComment = z.object({
  action: z.string(),
  pull_request: z.object({ number: z.number().int().positive(), title }),
  comment: z.object({
    id: z.number().int(),
    body: z.string().max(65_536),
    user: z.object({ login, type: z.string().optional() }),
    created_at: when,
    path: z.string().min(1).max(4096),
    line: z.number().int().positive().nullish(),
  }),
  repository: z.object({ full_name: z.string().min(3).max(300) }),
});

const gitlabNote = z.object({
  object_kind: z.literal("note"),
  user: z.object({ username: login }),
  project: z.object({ path_with_namespace: z.string().min(3).max(300) }),
  object_attributes: z.object({
    id: z.number().int(),
    note: z.string().max(1_000_000),
    noteable_type: z.string(),
    created_at: when,
    action: z.string().optional(),
    // A diff note's place on the merge request's diff.
    position: z
      .object({ new_path: z.string().min(1).max(4096), new_line: z.number().int().positive().nullish() })
      .nullish(),
  }),
  issue: z.object({ iid: z.number().int().positive(), title }).optional(),
  merge_request: z.object({ iid: z.number().int().positive(), title }).optional(),
});

/** The new comment a delivery carries, or null for any other event (an edit, a push, a label). */
export function forgeComment(delivery: ForgeDelivery, json: unknown): ForgeComment | null {
  if (delivery.forge === "gitlab") {
    if (delivery.event !== "Note Hook") return null;
    const note = gitlabNote.safeParse(json);
    if (!note.success) return null;
    const { object_attributes: a } = note.data;
    if (a.action && a.action !== "create") return null;
    const target =
      a.noteable_type === "Issue"
        ? note.data.issue && { kind: "issue" as const, number: note.data.issue.iid, title: note.data.issue.title }
        : a.noteable_type === "MergeRequest"
          ? note.data.merge_request && {
              kind: "pull" as const,
              number: note.data.merge_request.iid,
              title: note.data.merge_request.title,
            }
          : undefined;
    if (!target) return null;
    return {
      commentId: `gitlab:${a.id}`,
      body: a.note,
      login: note.data.user.username,
      bot: false,
      createdAt: a.created_at,
      repo: note.data.project.path_with_namespace,
      on: target,
      ...(a.position && target.kind === "pull"
        ? { at: { path: a.position.new_path, line: a.position.new_line ?? null } }
        : {}),
    };
  }
  if (delivery.forge === "github" && delivery.event === "pull_request_review_comment") {
    const parsed = githubReviewComment.safeParse(json);
    if (!parsed.success || parsed.data.action !== "created") return null;
    const { pull_request: pull, comment, repository } = parsed.data;
    return {
      commentId: `github:${comment.id}`,
      body: comment.body,
      login: comment.user.login,
      bot: comment.user.type === "Bot",
      createdAt: comment.created_at,
      repo: repository.full_name,
      on: { kind: "pull", number: pull.number, title: pull.title },
      at: { path: comment.path, line: comment.line ?? null },
    };
  }
  // GitHub sends issue_comment for both; Gitea names a pull request's pull_request_comment.
  if (delivery.event !== "issue_comment" && !(delivery.forge === "gitea" && delivery.event === "pull_request_comment"))
    return null;
  const parsed = githubLike.safeParse(json);
  if (!parsed.success || parsed.data.action !== "created") return null;
  const { issue, comment, repository } = parsed.data;
  return {
    commentId: `${delivery.forge}:${comment.id}`,
    body: comment.body,
    login: comment.user.login,
    bot: comment.user.type === "Bot",
    createdAt: comment.created_at,
    repo: repository.full_name,
    on: {
      kind: issue.pull_request || delivery.event === "pull_request_comment" ? "pull" : "issue",
      number: issue.number,
      title: issue.title,
    },
  };
}

/** What a comment asks of `@tandem` (the text after the mention), or null when it does not mention it. */
export function tandemRequest(body: string): string | null {
  const match = /(?:^|\s)@tandem\b(?![-\w]|\.\w)([\s\S]*)$/i.exec(body);
  const request = match?.[1]?.trim();
  return request ? request : null;
}
