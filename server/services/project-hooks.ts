import type { Db } from "@/server/db/client";
import { getProjectAgentSettings, updateProjectAgentSettings } from "@/server/db/repositories/agent-settings";
import { readHooks } from "@/server/agent/hooks";
import type { Workspace } from "@/server/workspace";

// A project admin's consent to the repository's hooks file (server/agent/hooks.ts): Settings shows
// the file as it is now, and approving stores the digest of exactly the bytes shown. A file that
// changed in between is not approved; one that changes later stops running until approved again.

export type HooksStatus = {
  state: "none" | "invalid" | "unapproved" | "approved";
  /** The file's text, for people to read before approving. */
  text: string;
  digest: string;
  problem?: string;
  /** Something was approved before and the file no longer has those bytes. */
  changedSinceApproval: boolean;
};

export async function projectHooksStatus(db: Db, projectId: string, workspace: Workspace): Promise<HooksStatus> {
  const { hooksDigest } = await getProjectAgentSettings(db, projectId);
  const found = await readHooks(workspace, hooksDigest);
  const changedSinceApproval = hooksDigest !== null && found.state !== "approved";
  if (found.state === "none") return { state: "none", text: "", digest: "", changedSinceApproval };
  if (found.state === "invalid")
    return { state: "invalid", text: "", digest: found.digest, problem: found.problem, changedSinceApproval };
  return { state: found.state, text: found.text, digest: found.digest, changedSinceApproval };
}

/** Approves the hooks file if it still has the bytes whose `digest` the admin saw; false otherwise. */
export async function approveProjectHooks(db: Db, projectId: string, workspace: Workspace, digest: string) {
  const found = await readHooks(workspace, null);
  if (found.state !== "unapproved" || found.digest !== digest) return false;
  await updateProjectAgentSettings(db, projectId, { hooksDigest: digest });
  return true;
}

/** Turns the project's hooks off: none run until an admin approves the file again. */
export async function revokeProjectHooks(db: Db, projectId: string) {
  await updateProjectAgentSettings(db, projectId, { hooksDigest: null });
}
