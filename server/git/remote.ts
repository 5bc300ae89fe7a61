import type { GitProgress, PullMode } from "@/lib/git-schemas";
import { openCredentialSocket, HELPER_MOUNT, type GitSecret } from "./credential-socket";
import { GitError } from "./errors";
import { progressReader } from "./progress";
import { isSshRemote } from "@/lib/git-remote-url";
import type { GitResult } from "@/server/sandbox/git-process";
import { runGit, text, type GitSandbox } from "./run";
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
  /** The remote's URL: its host decides network access and which secret is sent. */
  remote: URL;
  /** The remote as git is given it (an scp-like ssh address keeps its home-relative path); `remote.href` when absent. */
  url?: string;
  /** A token for an https remote, an ssh key for an ssh one. */
  secret: GitSecret | SshCredential | null;
  /** The project's accepted ssh host keys (ssh remotes). */
  hostKeys?: HostKeys;
  signal?: AbortSignal;
  onProgress?: (progress: GitProgress) => void;
};

/** Where a repository keeps what a detached network step reads and writes: its objects, shallow boundary and refs. */
type RepositoryStore = { format: string; objects: string; shallow: string; refs: Array<{ oid: string; ref: string }> };

// Every network step (clone, fetch, pull, push) runs in a throwaway repository in the sandbox's
// own /tmp, whose config is Tandem's alone: the workspace's .git/config (remote URLs, pushurl,
// insteadOf, protocol.*, http.*, credential.*, core.sshCommand, include) is never read while a
// secret is reachable, and no filter, hook or driver exists there to run. git reads and writes the
// workspace's object store (GIT_OBJECT_DIRECTORY: data, not code), takes its refs (stdin, as
// packed-refs) as negotiation tips and its shallow boundary (written back: a --depth fetch moves
// it), then prints the refs it fetched. GIT_ALLOW_PROTOCOL (an argument: the sandbox's environment
// takes no such name) outranks every protocol.* config, so only the remote's own transport (and an
// upgrade from http to https) can run, never ext::, file:// or what a config names.
const DETACHED = `set -eu
export GIT_ALLOW_PROTOCOL="$1"
format="$2" objects="$3" shallow="$4"
shift 4
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
(cd "$d" && git init -q --bare --template= --object-format="$format" .)
cat > "$d/packed-refs"
if [ -f "$shallow" ]; then cp "$shallow" "$d/shallow"; fi
export GIT_DIR="$d" GIT_OBJECT_DIRECTORY="$objects"
"$@"
if [ -f "$d/shallow" ]; then cp "$d/shallow" "$shallow"; fi
git for-each-ref --format='%(objectname) %(refname)' refs/remotes/origin/ refs/tags/
`;

const allowedProtocols = (remote: URL) =>
  isSshRemote(remote) ? "ssh" : remote.protocol === "http:" ? "http:https" : "https";

/**
 * The one place a git command reaches the network. The secret, if any, travels only through a
 * one-shot socket (a token) or an agent (an ssh key) bound into this command's sandbox, and git
 * runs detached from the workspace's repository (DETACHED), so nothing a repository's writers
 * configured applies while git holds the secret.
 */
async function runRemoteGit(
  sandbox: GitSandbox,
  args: string[],
  op: RemoteOperation,
  store: RepositoryStore,
): Promise<GitResult> {
  const run = {
    wrap: [
      "/bin/sh",
      "-c",
      DETACHED,
      "tandem-detached",
      allowedProtocols(op.remote),
      store.format,
      store.objects,
      store.shallow,
    ],
    input: store.refs.map((r, i) => `${r.oid} refs/have/${i}\n`).join(""),
  };
  if (isSshRemote(op.remote)) return runSshGit(sandbox, args, op, run);
  const secret = op.secret && "password" in op.secret ? op.secret : null;
  const socket = secret ? await openCredentialSocket(op.remote, secret) : null;
  try {
    const mountedAt = sandbox.mode === "bwrap" ? HELPER_MOUNT : socket?.dir;
    const config = socket
      ? [`credential.helper=${socket.helperCommand(mountedAt!)}`, "credential.useHttpPath=false"]
      : [];
    return await runGit(sandbox, args, {
      root: op.root,
      signal: op.signal,
      input: run.input,
      onStderr: op.onProgress ? progressReader(op.onProgress) : undefined,
      network: {
        projectId: op.projectId,
        host: op.remote.hostname,
        config,
        wrap: run.wrap,
        binds: socket && sandbox.mode === "bwrap" ? [{ source: socket.dir, target: HELPER_MOUNT }] : [],
      },
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
async function runSshGit(
  sandbox: GitSandbox,
  args: string[],
  op: RemoteOperation,
  run: { wrap: string[]; input: string },
): Promise<GitResult> {
  const host = knownHostName(op.remote.hostname, Number(op.remote.port || 22));
  if (!op.secret || !("sshKey" in op.secret))
    throw new GitError(
      "AUTH_FAILED",
      `Authentication failed: ${op.remote.hostname} is an ssh remote; store an ssh key for it in your git credentials.`,
    );
  if (sandbox.mode === "bwrap" && (await sandbox.network(op.projectId)).policy === "off") {
    throw new GitError(
      "HOST_NOT_ALLOWED",
      `${op.remote.hostname} is not allowed by the project's network policy (network is off): a project admin can change it in Project settings → Network.`,
    );
  }
  const session = await openSshSession(op.secret.sshKey, (await op.hostKeys?.known(host)) ?? []);
  try {
    const inSandbox = sandbox.mode === "bwrap";
    const sshCommand = session.command(inSandbox ? SSH_MOUNT : session.dir, {
      throughProxy: inSandbox,
      user: op.remote.username ? undefined : op.secret.username,
    });
    return await runGit(sandbox, args, {
      root: op.root,
      signal: op.signal,
      input: run.input,
      onStderr: op.onProgress ? progressReader(op.onProgress) : undefined,
      network: {
        projectId: op.projectId,
        host: op.remote.hostname,
        config: [`core.sshCommand=${sshCommand}`, "ssh.variant=ssh", "protocol.ssh.allow=always"],
        wrap: run.wrap,
        binds: inSandbox ? [{ source: session.dir, target: SSH_MOUNT }] : [],
      },
    });
  } finally {
    const accepted = await session.newHostKeys(host);
    await session.close();
    if (accepted.length) await op.hostKeys?.accept(accepted);
  }
}

/** What a detached network step needs of the workspace's repository, read by a local git (no secret, no network). */
async function repositoryStore(sandbox: GitSandbox, root: string, withRefs: boolean): Promise<RepositoryStore> {
  const [format, objects, shallow] = text(
    await runGit(
      sandbox,
      ["rev-parse", "--show-object-format", "--path-format=absolute", "--git-path", "objects", "--git-path", "shallow"],
      { root },
    ),
  ).split("\n");
  if (!/^sha(1|256)$/.test(format ?? "") || !objects?.startsWith("/") || !shallow?.startsWith("/"))
    throw new GitError("NOT_A_REPOSITORY", "This project is not a git repository.");
  return { format: format!, objects, shallow, refs: withRefs ? await localRefs(sandbox, root) : [] };
}

async function localRefs(sandbox: GitSandbox, root: string): Promise<Array<{ oid: string; ref: string }>> {
  return parseRefs(text(await runGit(sandbox, ["for-each-ref", "--format=%(objectname) %(refname)"], { root })));
}

function parseRefs(out: string): Array<{ oid: string; ref: string }> {
  return out.split("\n").flatMap((line) => {
    const match = /^([0-9a-f]{40,64}) (refs\/\S+)$/.exec(line);
    return match ? [{ oid: match[1]!, ref: match[2]! }] : [];
  });
}

/**
 * Fetches every branch and tag of the remote into `origin/*` and the tags (new tags only; a
 * local tag is never moved), pruning remote branches that are gone: the network step detached
 * from the repository's config, then the refs written by a local git with no secret. `only`
 * fetches just those refspecs (a shallow clone's one branch), with `depth`.
 */
export async function fetchRemote(
  sandbox: GitSandbox,
  op: RemoteOperation & { depth?: number; only?: string[] },
): Promise<void> {
  const store = await repositoryStore(sandbox, op.root, true);
  const url = op.url ?? op.remote.href;
  const refspecs = op.only ?? ["+refs/heads/*:refs/remotes/origin/*", "+refs/tags/*:refs/tags/*"];
  const fetched = parseRefs(
    text(
      await runRemoteGit(
        sandbox,
        [
          "fetch",
          "--progress",
          "--no-tags",
          ...(op.depth ? ["--depth", String(op.depth)] : []),
          "--",
          url,
          ...refspecs,
        ],
        op,
        store,
      ),
    ),
  );
  const had = new Set(store.refs.map((r) => r.ref));
  const theirs = new Set(fetched.map((r) => r.ref));
  const updates = [
    ...fetched.filter((r) => r.ref.startsWith("refs/remotes/origin/")).map((r) => `update ${r.ref} ${r.oid}`),
    ...fetched.filter((r) => r.ref.startsWith("refs/tags/") && !had.has(r.ref)).map((r) => `create ${r.ref} ${r.oid}`),
    ...(op.only
      ? []
      : store.refs
          .filter(
            (r) =>
              r.ref.startsWith("refs/remotes/origin/") && r.ref !== "refs/remotes/origin/HEAD" && !theirs.has(r.ref),
          )
          .map((r) => `delete ${r.ref}`)),
  ];
  if (updates.length)
    await runGit(sandbox, ["update-ref", "--no-deref", "--stdin"], { root: op.root, input: `${updates.join("\n")}\n` });
}

/**
 * Clones `url` (as given: an scp-like ssh address keeps its home-relative path) into the new
 * project's empty root as fetch does: a repository made locally with origin pointing there, the
 * network steps (the remote's default branch, then its branches and tags) detached from it, and
 * the checkout by a git with no secret. A writer who slips config into the new .git meanwhile
 * changes nothing that runs while the secret is reachable.
 */
export async function cloneRepository(
  sandbox: GitSandbox,
  op: RemoteOperation & { branch?: string; depth?: number },
): Promise<void> {
  const url = op.url ?? op.remote.href;
  const local = (args: string[]) => runGit(sandbox, args, { root: op.root, signal: op.signal });
  await local(["init", "-q"]);
  await local(["remote", "add", "origin", url]);
  const wanted = op.branch ? [`refs/heads/${op.branch}`, `refs/tags/${op.branch}`] : [];
  const listed = text(
    await runRemoteGit(
      sandbox,
      ["ls-remote", "--symref", "--", url, "HEAD", ...wanted],
      op,
      await repositoryStore(sandbox, op.root, false),
    ),
  );
  const head = /^ref: refs\/heads\/(\S+)\tHEAD$/m.exec(listed)?.[1];
  const tag =
    !!op.branch && !listed.includes(`\trefs/heads/${op.branch}\n`) && listed.includes(`\trefs/tags/${op.branch}\n`);
  if (op.branch && !tag && !listed.includes(`\trefs/heads/${op.branch}\n`))
    throw new GitError("NOT_FOUND", `The remote has no branch or tag '${op.branch}'.`);
  const branch = op.branch ?? head;
  // As git clone: --depth fetches the one branch (or tag) it checks out.
  const only =
    op.depth && branch
      ? [tag ? `+refs/tags/${branch}:refs/tags/${branch}` : `+refs/heads/${branch}:refs/remotes/origin/${branch}`]
      : undefined;
  await fetchRemote(sandbox, { ...op, depth: op.depth, only });
  if (!branch) return; // an empty repository: nothing to check out
  if (head) await local(["symbolic-ref", "refs/remotes/origin/HEAD", `refs/remotes/origin/${head}`]);
  if (tag) await local(["checkout", "-q", "-f", "--detach", `refs/tags/${branch}`]);
  else await local(["checkout", "-q", "-f", "-B", branch, "--track", `refs/remotes/origin/${branch}`]);
}

/**
 * Pulls the current branch's upstream by merge or rebase: a fetch holding the secret, then the
 * merge with none (the socket is closed; filters and merge drivers run there as in a terminal).
 * Conflicts leave the tree for people to resolve.
 */
export async function pullRemote(sandbox: GitSandbox, op: RemoteOperation & { mode: PullMode; author: Author }) {
  const branch = text(
    await runGit(sandbox, ["symbolic-ref", "--short", "-q", "HEAD"], { root: op.root, okCodes: [1] }),
  ).trim();
  if (!branch) throw new GitError("BAD_INPUT", "HEAD is detached: switch to a branch to pull.");
  const merge = text(
    await runGit(sandbox, ["config", "--get", `branch.${branch}.merge`], { root: op.root, okCodes: [1] }),
  ).trim();
  if (!merge.startsWith("refs/heads/"))
    throw new GitError(
      "BAD_INPUT",
      `The branch '${branch}' has no upstream branch to pull from: push it first (Push sets its upstream).`,
    );
  await fetchRemote(sandbox, op);
  const upstream = `refs/remotes/origin/${merge.slice("refs/heads/".length)}`;
  const exists = await runGit(sandbox, ["rev-parse", "--verify", "-q", `${upstream}^{commit}`], {
    root: op.root,
    okCodes: [1],
  });
  if (exists.code !== 0)
    throw new GitError(
      "NOT_FOUND",
      `That branch does not exist on the remote: '${merge.slice("refs/heads/".length)}', the upstream of '${branch}'.`,
    );
  const identity = [`user.name=${op.author.name}`, `user.email=${op.author.email}`].flatMap((c) => ["-c", c]);
  await runGit(
    sandbox,
    [...identity, ...(op.mode === "rebase" ? ["rebase", upstream] : ["merge", "--no-edit", upstream])],
    { root: op.root, signal: op.signal },
  );
}

/**
 * Pushes a branch to the remote by its URL (never through a remote of the repository's config),
 * then records what `--set-upstream` would: origin/<branch> and the branch's upstream.
 */
export async function pushBranch(sandbox: GitSandbox, op: RemoteOperation & { branch: string }) {
  const oid = text(
    await runGit(sandbox, ["rev-parse", "--verify", `refs/heads/${op.branch}^{commit}`], { root: op.root }),
  ).trim();
  const store = await repositoryStore(sandbox, op.root, false);
  await runRemoteGit(
    sandbox,
    ["push", "--progress", "--", op.url ?? op.remote.href, `${oid}:refs/heads/${op.branch}`],
    op,
    store,
  );
  await runGit(sandbox, ["update-ref", "--no-deref", `refs/remotes/origin/${op.branch}`, oid], { root: op.root });
  await runGit(sandbox, ["config", `branch.${op.branch}.remote`, "origin"], { root: op.root });
  await runGit(sandbox, ["config", `branch.${op.branch}.merge`, `refs/heads/${op.branch}`], { root: op.root });
}
