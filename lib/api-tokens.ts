import { z } from "zod";

// Personal API tokens: what a script or CI may do as its person. The scopes add up; none implies
// another except that every token may read what its person may read.
//   read:  queries and live streams (every token has it);
//   write: everything a member changes (files, git, terminals, settings of their role);
//   run:   start agent sessions, send them messages, answer their approvals (costs model tokens);
//   admin: what needs the person's admin role (project and team administration, the instance's admin).
export const API_TOKEN_SCOPES = ["read", "write", "run", "admin"] as const;
export type ApiTokenScope = (typeof API_TOKEN_SCOPES)[number];

export const API_TOKEN_SCOPE_LABELS: Record<ApiTokenScope, string> = {
  read: "Read projects, files and sessions",
  write: "Change files, git, terminals and settings",
  run: "Start agent sessions and answer their approvals",
  admin: "Administer projects, teams and the instance (as your role allows)",
};

/** A token's text starts with this, so that secret scanners and people recognise it. */
export const API_TOKEN_PREFIX = "tandem_";

export const API_TOKEN_MAX_DAYS = 366;

export const createApiTokenInput = z.object({
  name: z.string().trim().min(1, "Name the token").max(100),
  scopes: z
    .array(z.enum(API_TOKEN_SCOPES))
    .min(1, "Choose at least one scope")
    // Every token reads; administering implies changing.
    .transform((scopes) => [
      ...new Set<ApiTokenScope>(["read", ...scopes, ...(scopes.includes("admin") ? (["write"] as const) : [])]),
    ]),
  expiresInDays: z.number().int().min(1).max(API_TOKEN_MAX_DAYS),
});
