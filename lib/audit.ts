import { z } from "zod";

// The audit log's vocabulary, shared by the server (which records) and the admin page (which
// searches and exports). docs/admin.md lists what each action records.
export const AUDIT_ACTIONS = [
  "sign_in",
  "sign_in_failed",
  "sign_out",
  "user.disabled",
  "user.enabled",
  "team.created",
  "team.member_added",
  "team.member_removed",
  "team.role_changed",
  "team.invite_created",
  "team.invite_revoked",
  "team.internal_hosts_changed",
  "signup_invite.created",
  "signup_invite.revoked",
  "share_link.created",
  "share_link.revoked",
  "preview_link.created",
  "preview_link.revoked",
  "preview.visibility_changed",
  "api_token.created",
  "api_token.revoked",
  "api_token.used",
  "network.host_allowed",
  "network.policy_changed",
  "approval.answered",
  "git.pushed",
  "settings.changed",
  "project.settings_changed",
  "project.deleted",
  "secret.set",
  "secret.deleted",
  "model.settings_changed",
  "budget.set",
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/**
 * How the actor reached the server: a browser login, an API token, a share link, a request from
 * no one signed in (a refused sign-in), or the server itself (jobs, start-up).
 */
export type AuditVia = "browser" | "token" | "link" | "anonymous" | "system";

export const auditSearchInput = z.object({
  actor: z.string().trim().max(200).optional(),
  projectId: z.string().uuid().optional(),
  teamId: z.string().uuid().optional(),
  action: z.enum(AUDIT_ACTIONS).optional(),
  from: z.date().optional(),
  to: z.date().optional(),
});
export type AuditSearch = z.infer<typeof auditSearchInput>;

export type AuditEventView = {
  id: string;
  at: Date;
  actorId: string | null;
  actorEmail: string | null;
  via: string;
  tokenId: string | null;
  ip: string | null;
  forwardedFor: string | null;
  userAgent: string | null;
  action: string;
  teamId: string | null;
  projectId: string | null;
  target: string | null;
  detail: Record<string, unknown>;
};

export const AUDIT_RETENTION_MAX_DAYS = 3650;
/** Rows per page of a search. */
export const AUDIT_PAGE = 100;
