import { z } from "zod";
import { isSshRemote, parseRemoteUrl } from "./git-remote-url";

// What the Source Control panel and the git API exchange (browser and server).

export type GitLetter = "M" | "A" | "D" | "R" | "C" | "T" | "U";
export type GitFileChange = { path: string; oldPath?: string; letter: GitLetter };

export type GitStatus = {
  /** null when HEAD is detached. */
  branch: string | null;
  /** null before the first commit. */
  oid: string | null;
  upstream: string | null;
  ahead: number;
  behind: number;
  staged: GitFileChange[];
  changed: GitFileChange[];
  untracked: string[];
  conflicted: GitFileChange[];
  /** A merge or rebase waiting for its conflicts to be resolved. */
  operation: "merge" | "rebase" | null;
};

export type GitCommitSummary = {
  oid: string;
  parents: string[];
  author: string;
  email: string;
  date: string;
  subject: string;
  body: string;
};

export type GitProgress = { phase: string; percent: number | null; done: number | null; total: number | null };

export type GitOperationEvent =
  | ({ kind: "progress" } & GitProgress)
  | { kind: "done" }
  | { kind: "failed"; code: string; message: string };

export const gitPath = z
  .string()
  .min(1, "path is empty")
  .max(4096)
  .refine((p) => !p.startsWith("/") && !p.split("/").includes(".."), "path must stay inside the project");

export const branchName = z
  .string()
  .trim()
  .min(1, "Give the branch a name")
  .max(200)
  .regex(
    /^(?!-)(?!.*\.\.)(?!.*\/\/)(?!.*@\{)[^\s~^:?*[\\\x00-\x1f\x7f]+(?<![./]|\.lock)$/,
    "That is not a valid branch name",
  );

/** https (without a login in it: tokens are stored as credentials) or ssh, naming a repository path. */
function validRemote(raw: string): boolean {
  const url = parseRemoteUrl(raw);
  if (!url || url.pathname.length <= 1) return false;
  return isSshRemote(url) ? !url.password : !url.username && !url.password;
}

export const gitUrl = z
  .string()
  .trim()
  .max(2000)
  .refine(
    validRemote,
    "Give an https:// or ssh URL of the repository (e.g. https://github.com/owner/repo.git or git@github.com:owner/repo.git)",
  );

export const operationId = z.string().uuid("operationId must be a uuid");

export const pullMode = z.enum(["merge", "rebase"]);
export type PullMode = z.infer<typeof pullMode>;
