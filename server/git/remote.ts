import type { GitProgress, PullMode } from "@/lib/git-schemas";
import { openCredentialSocket, HELPER_MOUNT, type GitSecret } from "./credential-socket";
import { GitError } from "./errors";
import { progressReader } from "./progress";
import { isSshRemote } from "@/lib/git-remote-url";
import { requireRemoteUrl } from "./remote-url";
import { runGit, text, type GitResult, type GitSandbox } from "./run";
import type { Author } from "./repository";
import type { SshKeySecret } from "./ssh-key";
import { knownHostName, openSshSession, SSH_MOUNT, type KnownHostKey } from "./ssh-session";

/** An ssh key credential: the key, and the login used when the URL names none (`git`). */
export type SshCredential = { sshKey: SshKeySecret; username: string };

/** Where a project keeps the ssh host keys it accepted on first use. */
export interface HostKeys {
  known(host: string): Promise<KnownHostKey[]>;
  accept(keys: KnownHostKey[]): Promise<void>;
}

export type RemoteOperation = {
  /** The project whose network policy applies (narrowed to the remote's host). */
  projectId: string;
  root: string;
  /** The remote's URL as git will use it: its host decides network access and which secret is sent. */
  remote: URL;
  /** A token for an https remote, an ssh key for an ssh one. */
  secret: GitSecret | SshCredential | null;
  /** The project's accepted ssh host keys (ssh remotes). */
  hostKeys?: HostKeys;
  signal?: AbortSignal;
  onProgress?: (progress: GitProgress) => void;
};

/**
 * The one place a git command reaches the network. The secret, if any, travels only through a
 * one-shot socket (a token) or an agent (an ssh key) bound into this command's sandbox; hooks and
 * fsmonitor stay off, so no code from the repository runs while git holds it.
 */
export async function runRemoteGit(sandbox: GitSandbox, args: string[], op: RemoteOperation): Promise<GitResult> {
  if (isSshRemote(op.remote)) return runSshGit(sandbox, args, op);
  const secret = op.secret && "password" in op.secret ? op.secret : null;
  const socket = secret ? await openCredentialSocket(op.remote, secret) : null;
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

/**
 * Git over ssh: the ssh command is set on git's command line (`-c core.sshCommand=`), which
 * outranks the repository's own config, so a `core.sshCommand` or `ssh.variant` in it never runs.
 * ssh talks to the key's agent and reaches the host only through the egress proxy; a host seen
 * for the first time has its key recorded for the project, and a changed key is refused.
 */
async function runSshGit(sandbox: GitSandbox, args: string[], op: RemoteOperation): Promise<GitResult> {
  const host = knownHostName(op.remote.hostname, Number(op.remote.port || 22));
  if (!op.secret || !("sshKey" in op.secret)) throw new GitError("AUTH_FAILED", `Authentication failed: ${op.remote.hostname} is an ssh remote; store an ssh key for it in your git credentials.`);
  if (sandbox.mode === "bwrap" && (await sandbox.network(op.projectId)).policy === "off") {
    throw new GitError("HOST_NOT_ALLOWED", `${op.remote.hostname} is not allowed by the project's network policy (network is off): a project admin can change it in Project settings → Network.`);
  }
  const session = await openSshSession(op.secret.sshKey, (await op.hostKeys?.known(host)) ?? []);
  try {
    const inSandbox = sandbox.mode === "bwrap";
    const sshCommand = session.command(inSandbox ? SSH_MOUNT : session.dir, { throughProxy: inSandbox, user: op.remote.username ? undefined : op.secret.username });
    return await runGit(sandbox, args, {
      root: op.root,
      signal: op.signal,
      onStderr: op.onProgress ? progressReader(op.onProgress) : undefined,
      network: {
        projectId: op.projectId,
        host: op.remote.hostname,
        config: [`core.sshCommand=${sshCommand}`, "ssh.variant=ssh", "protocol.ssh.allow=always"],
        binds: inSandbox ? [{ source: session.dir, target: SSH_MOUNT }] : [],
      },
    });
  } finally {
    const accepted = await session.newHostKeys(host);
    await session.close();
    if (accepted.length) await op.hostKeys?.accept(accepted);
  }
}

/** The URL of a remote as git resolves it (insteadOf rules applied), for deciding the host. */
export async function resolveRemoteUrl(sandbox: GitSandbox, root: string, remote = "origin"): Promise<URL> {
  const result = await runGit(sandbox, ["remote", "get-url", remote], { root, okCodes: [2, 128] });
  const raw = text(result).trim();
  if (result.code !== 0 || !raw) throw new GitError("NOT_FOUND", `This repository has no remote named '${remote}'. Add one in the terminal (git remote add ${remote} <url>).`);
  return requireRemoteUrl(raw, remote);
}

/** Clones `url` (as given: an scp-like ssh address keeps its home-relative path) into the root. */
export function cloneRepository(sandbox: GitSandbox, op: RemoteOperation & { url?: string; branch?: string; depth?: number }) {
  const args = ["clone", "--progress", "--no-recurse-submodules", ...(op.branch ? ["--branch", op.branch] : []), ...(op.depth ? ["--depth", String(op.depth)] : []), "--", op.url ?? op.remote.href, "."];
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
