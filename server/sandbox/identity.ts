import { createHash } from "node:crypto";
import {
  chmodSync,
  chownSync,
  closeSync,
  constants,
  fstatSync,
  lchownSync,
  lstatSync,
  openSync,
  readdirSync,
  statSync,
} from "node:fs";
import path from "node:path";
import { SANDBOX_HOME, SANDBOX_USER } from "./environment";

// Who a sandboxed process is on the host. A server running as root starts bubblewrap as an
// unprivileged uid/gid of the project's own, so every file the server owns is "other" to the
// sandbox (mode 0600 files are unreadable even when a bind would show them) and RLIMIT_NPROC,
// which the kernel counts per real uid and ignores for root, limits one project at a time.
//
// Sharing the workspace: the project's gid owns the workspace's folders with the setgid bit
// set, and the server runs with umask 002. A file the server writes (editor save, checkpoint
// restore, upload) is then group-writable by the project's gid, and a file written in the
// sandbox belongs to the project's uid, which root may write anyway. Chowning on each write path
// instead would have to be remembered by every future write path; the setgid folders need
// nothing from them.

export type HostIdentity = { uid: number; gid: number };

const FIRST_ID = 1_100_000;
const ID_COUNT = 100_000;
/**
 * The host uid/gid of the agent's browser (server/tools/agent-browser/chromium.ts) when the server
 * is root: just below the projects' range, so it owns none of the server's or any project's files.
 */
export const BROWSER_IDENTITY: HostIdentity = { uid: FIRST_ID - 1, gid: FIRST_ID - 1 };
/** The uid and gid the sandbox user has inside its user namespace (what `id` shows there). */
export const INNER_ID = 1000;

/** The host uid/gid of the project whose workspace is `workspaceRoot` (stable across restarts). */
export function projectIdentity(workspaceRoot: string): HostIdentity {
  const digest = createHash("sha256").update(path.resolve(workspaceRoot)).digest();
  const id = FIRST_ID + (digest.readUInt32BE(0) % ID_COUNT);
  return { uid: id, gid: id };
}

/** Whether this process may start others as another uid (it is root). */
export function canSwitchIdentity(): boolean {
  return process.getuid?.() === 0;
}

const prepared = new Set<string>();

/**
 * Hands the workspace to the project's group once (folders setgid and group-writable, files
 * group-writable), and makes sure the unprivileged uid can reach the folder to bind it. The root
 * folder is handed over last, so its group and setgid bit say the walk finished, and later starts
 * skip it. (No marker file: a workspace about to receive a clone must stay empty.)
 */
export function prepareWorkspace(workspaceRoot: string, identity: HostIdentity): void {
  const key = `${workspaceRoot}:${identity.gid}`;
  if (prepared.has(key)) return;
  openAncestors(workspaceRoot);
  // The root is the server's own folder at a path it chose; what is inside is the project's.
  const rootFd = openSync(workspaceRoot, O_PATH | constants.O_DIRECTORY);
  try {
    if (!isShared(workspaceRoot, identity)) shareInode(rootFd, fstatSync(rootFd).mode, identity.gid, true);
    closeToOthers(rootFd);
  } finally {
    closeSync(rootFd);
  }
  prepared.add(key);
}

/**
 * Another project's uid may not enter the tree. Its files are made as any process makes them
 * (0644 under the usual umask), and what walks a tree by path strings runs as the project's uid
 * outside the sandbox (ripgrep): a folder swapped for a link to another project's tree led it there.
 * Trees handed over before this rule lose the bits at their next launch.
 */
function closeToOthers(rootFd: number): void {
  const mode = fstatSync(rootFd).mode & 0o7777;
  if (mode & 0o007) chmodSync(fdPath(rootFd), mode & ~0o007);
}

/**
 * Whether the workspace was handed to the project's group (its root carries the group and the
 * setgid bit): true from the first sandbox launch on, so before it no project process ran there.
 */
export function isShared(workspaceRoot: string, identity: HostIdentity): boolean {
  const root = lstatSync(workspaceRoot, { throwIfNoEntry: false });
  return root !== undefined && root.gid === identity.gid && (root.mode & 0o2000) !== 0;
}

/**
 * The project identity a tree was handed to (its root's group, set with the setgid bit by
 * prepareWorkspace), or null before its first sandbox launch. Only root may change the group of
 * the root folder, which is the server's, so a project's processes cannot make it another's. A
 * session's worktree is handed to its project's identity, so this needs no knowledge of trees.
 */
export function sharedIdentity(workspaceRoot: string): HostIdentity | null {
  const root = lstatSync(workspaceRoot, { throwIfNoEntry: false });
  if (!root?.isDirectory() || (root.mode & 0o2000) === 0) return null;
  if (root.gid < FIRST_ID || root.gid >= FIRST_ID + ID_COUNT) return null;
  return { uid: root.gid, gid: root.gid };
}

// O_PATH (not in Node's fs.constants): a descriptor that names an inode without opening it for
// reading, so a FIFO or device met on the walk is never woken.
const O_PATH = 0o10000000;

/** The magic link of an open descriptor, or of one entry of an open folder. */
const fdPath = (fd: number, name?: string) =>
  name === undefined ? `/proc/self/fd/${fd}` : `/proc/self/fd/${fd}/${name}`;

/**
 * Hands the tree under the open folder `dirFd` to `gid`, contents before the folder itself, so a
 * folder that carries the group was finished. The walk holds a descriptor of each entry (opened
 * O_NOFOLLOW through its parent's descriptor) and changes that inode, never a path: a folder
 * swapped for a link to a host folder meanwhile is either the folder it opened or a link, whose
 * own group changes and nothing behind it. The server is root; this is the workspace's content.
 */
function share(dirFd: number, gid: number): void {
  for (const name of readdirSync(fdPath(dirFd))) {
    let fd: number;
    try {
      fd = openSync(fdPath(dirFd, name), O_PATH | constants.O_NOFOLLOW);
    } catch {
      continue; // gone meanwhile
    }
    try {
      const stat = fstatSync(fd);
      if (stat.isSymbolicLink()) lchownSync(fdPath(dirFd, name), -1, gid);
      else if (stat.isDirectory()) shareInode(fd, stat.mode, gid, true);
      else if (stat.isFile()) shareInode(fd, stat.mode, gid, false);
    } finally {
      closeSync(fd);
    }
  }
}

function shareInode(fd: number, rawMode: number, gid: number, folder: boolean): void {
  const mode = rawMode & 0o7777;
  if (folder) share(fd, gid);
  chownSync(fdPath(fd), -1, gid);
  chmodSync(fdPath(fd), folder ? mode | 0o2070 : mode | 0o060 | ((mode & 0o100) >> 3));
}

// bwrap runs as the unprivileged uid, so it needs search (x) permission on every folder above the
// workspace to bind it. Search without read reveals no names; and inside the sandbox those
// folders are masked or absent anyway, so this only matters to other host users.
function openAncestors(workspaceRoot: string): void {
  const uid = process.getuid?.();
  for (let dir = path.dirname(workspaceRoot); ; dir = path.dirname(dir)) {
    const stat = statSync(dir);
    if ((stat.mode & 0o001) === 0 && stat.uid === uid) chmodSync(dir, (stat.mode & 0o7777) | 0o001);
    if (dir === path.dirname(dir)) break;
  }
}

/** /etc/passwd and /etc/group inside: the sandbox user must resolve to a name; the host's must not leak in. */
export function identityFileContents(): { passwd: string; group: string } {
  return {
    passwd:
      `${SANDBOX_USER}:x:${INNER_ID}:${INNER_ID}:Tandem:${SANDBOX_HOME}:/bin/bash\n` +
      "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n",
    group: `${SANDBOX_USER}:x:${INNER_ID}:\nnogroup:x:65534:\n`,
  };
}

/** setpriv to the identity, supplementary groups cleared; nothing when there is none. */
export function dropIdentity(identity: { uid: number; gid: number } | undefined): string[] {
  return identity
    ? ["/usr/bin/setpriv", `--reuid=${identity.uid}`, `--regid=${identity.gid}`, "--clear-groups", "--"]
    : [];
}
