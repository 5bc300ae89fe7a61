import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { workspacePathInside } from "@/lib/workspace-mount";
import { runtimeDir } from "./runtime-dir";

// git refuses a repository whose folder another user owns ("detected dubious ownership"), and the
// workspace's root folder belongs to the server (identity.ts) while a root server runs each
// project's sandbox as the project's own uid. So each sandbox gets a system-level git config,
// bound read-only at /etc/gitconfig, that trusts exactly its workspace's root, the one folder
// git finds there that the project's uid does not own. It is seen only inside that sandbox:
// a git the server or an admin runs on the host still refuses the workspace, so no repository
// config or hook runs outside the sandbox; inside, the repository can only reach what the
// project's uid already may. Not `safe.directory=*` (every folder, including ones of other
// owners bound in later), nor a chown of the root (it must stay the server's: identity.ts).

/** Where the sandbox sees it; GIT_CONFIG_SYSTEM names it too, for a git built with another sysconfdir. */
export const SANDBOX_GIT_CONFIG = "/etc/gitconfig";

const written = new Map<string, string>();
/** Identity files written so far (named by their content's hash, so each is written once). */
const identities = new Set<string>();

/** The host file (in the runtime folder) to bind at SANDBOX_GIT_CONFIG for `workspaceRoot`'s sandbox. */
export function sandboxGitConfigFile(workspaceRoot: string): string {
  const known = written.get(workspaceRoot);
  if (known) return known;
  const name = `gitconfig-${createHash("sha256").update(workspaceRoot).digest("hex").slice(0, 32)}`;
  const file = path.join(runtimeDir().root, name);
  writeFileSync(file, sandboxGitConfig(workspaceRoot), { mode: 0o644 });
  written.set(workspaceRoot, file);
  return file;
}

/** Who git commits as in a sandbox (a terminal's owner). */
export interface GitIdentity {
  name: string;
  email: string;
}

/** Where the sandbox sees the identity's config; GIT_CONFIG_GLOBAL names it. */
export const SANDBOX_GIT_IDENTITY = "/run/tandem/gitconfig-user";

/**
 * The host file (in the runtime folder) holding `identity` as a global git config: a repository's
 * own user.name and user.email still win over it, as they would over ~/.gitconfig.
 */
export function gitIdentityFile(identity: GitIdentity): string {
  const text = `[user]\n\tname = ${quote(identity.name)}\n\temail = ${quote(identity.email)}\n`;
  const name = `gitidentity-${createHash("sha256").update(text).digest("hex").slice(0, 32)}`;
  const file = path.join(runtimeDir().root, name);
  if (!identities.has(file)) {
    writeFileSync(file, text, { mode: 0o644 });
    identities.add(file);
  }
  return file;
}

export function sandboxGitConfig(workspaceRoot: string): string {
  // Both places the sandbox binds it: the host path and WORKSPACE_MOUNT (lib/workspace-mount.ts).
  const places = [...new Set([workspaceRoot, workspacePathInside(true, workspaceRoot)])];
  return `[safe]\n${places.map((place) => `\tdirectory = ${quote(place)}\n`).join("")}`;
}

// A value in double quotes, with git's escapes: a folder name may hold any of these.
function quote(value: string): string {
  const escaped = value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n").replace(/\t/g, "\\t");
  return `"${escaped}"`;
}
