import type { GitProgress, PullMode } from "@/lib/git-schemas";
import { openCredentialSocket, HELPER_MOUNT, type GitSecret } from "./credential-socket";
import { GitError } from "./errors";
import { progressReader } from "./progress";
import { runGit, text, type GitResult, type GitSandbox } from "./run";
import type { Author } from "./repository";

export type RemoteOperation = {
  /** The project whose network policy applies (narrowed to the remote's host). */
  projectId: string;
  root: string;
  /** The remote's URL as git will use it: its host decides network access and which secret is sent. */
  remote: URL;
  secret: GitSecret | null;
  signal?: AbortSignal;
  onProgress?: (progress: GitProgress) => void;
};

/**
 * The one place a git command reaches the network. The secret, if any, travels only through a
 * one-shot socket bound into this command's sandbox; hooks and fsmonitor stay off, so no code
 * from the repository runs while git holds it.
 */
export async function runRemoteGit(sandbox: GitSandbox, args: string[], op: RemoteOperation): Promise<GitResult> {
  const socket = op.secret ? await openCredentialSocket(op.remote, op.secret) : null;
  try {
    const mountedAt = sandbox.mode === "bwrap" ? HELPER_MOUNT : socket?.dir;
    const config = socket ? [`credential.helper=${socket.helperCommand(mountedAt!)}`, "credential.useHttpPath=false"] : [];
    return await runGit(sandbox, args, {
      root: op.root,
      signal: op.signal,
      onStderr: op.onProgress ? progressReader(op.onProgress) : undefined,
      network: { projectId: op.projectId, host: op.remote.hostname, config, binds: socket && sandbox.mode === "bwrap" ? [{ source: socket.dir, target: HELPER_MOUNT }] : [] },
    });
  } finally {
    await socket?.close();
  }
}

/** The URL of a remote as git resolves it (insteadOf rules applied), for deciding the host. */
export async function resolveRemoteUrl(sandbox: GitSandbox, root: string, remote = "origin"): Promise<URL> {
  const result = await runGit(sandbox, ["remote", "get-url", remote], { root, okCodes: [2, 128] });
  const raw = text(result).trim();
  if (result.code !== 0 || !raw) throw new GitError("NOT_FOUND", `This repository has no remote named '${remote}'. Add one in the terminal (git remote add ${remote} <url>).`);
  try {
    const url = new URL(raw);
    if (url.protocol !== "https:" && url.protocol !== "http:") throw new Error("scheme");
    return url;
  } catch {
    throw new GitError("BAD_INPUT", `The remote '${remote}' (${raw}) is not an https URL: Tandem fetches and pushes over https only.`);
  }
}

export function cloneRepository(sandbox: GitSandbox, op: RemoteOperation & { branch?: string; depth?: number }) {
  const args = ["clone", "--progress", "--no-recurse-submodules", ...(op.branch ? ["--branch", op.branch] : []), ...(op.depth ? ["--depth", String(op.depth)] : []), "--", op.remote.href, "."];
  return runRemoteGit(sandbox, args, op);
}

export function fetchRemote(sandbox: GitSandbox, op: RemoteOperation) {
  return runRemoteGit(sandbox, ["fetch", "--progress", "--prune", "origin"], op);
}

/** Pulls the current branch's upstream by merge or rebase; conflicts leave the tree for people to resolve. */
export function pullRemote(sandbox: GitSandbox, op: RemoteOperation & { mode: PullMode; author: Author }) {
  const identity = [`user.name=${op.author.name}`, `user.email=${op.author.email}`].flatMap((c) => ["-c", c]);
  return runRemoteGit(sandbox, [...identity, "pull", "--progress", "--no-edit", op.mode === "rebase" ? "--rebase" : "--no-rebase", "origin"], op);
}

/** Pushes a branch, setting its upstream on origin. */
export function pushBranch(sandbox: GitSandbox, op: RemoteOperation & { branch: string }) {
  return runRemoteGit(sandbox, ["push", "--progress", "--set-upstream", "origin", `refs/heads/${op.branch}:refs/heads/${op.branch}`], op);
}
