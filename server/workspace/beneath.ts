// File access beneath a workspace root that a symbolic link cannot redirect.
//
// The server runs as root, and a workspace is written by people, cloned repositories and the agent:
// a member's terminal can swap any folder for a link to a host folder at any moment (renameat2
// RENAME_EXCHANGE in a loop), so a path that was checked and is then used again as a string can
// land anywhere on the host. Here nothing is used twice: every path is opened relative to a
// descriptor of the root with openat2(2) and RESOLVE_BENEATH (native/beneath.c), so the kernel
// itself keeps the whole walk inside the root. Links that stay inside still work, as in a real
// repository (node_modules/.bin, relative links); a link that leads out, an absolute link or `..`
// above the root fails with EXDEV (OUTSIDE_WORKSPACE). RESOLVE_BENEATH rather than RESOLVE_IN_ROOT:
// the sandbox binds the workspace at its host path (sandbox/launcher.ts), so an absolute link made
// inside names a host path, and re-rooting it at the workspace (IN_ROOT) would point somewhere else
// than it does for the project's own processes; refusing it is the honest answer (make it relative).
// Entry operations Node has no *at call for (lstat, readdir here; mkdir, rename, unlink, rmdir, link
// in beneath-entries.ts) open the parent folder this way and then name one entry through
// `/proc/self/fd/<fd>/<name>`: the magic link is bound to the opened folder, and a single name is
// never followed (those calls act on the last component itself). Data is only ever read from regular files (beneath-files.ts): the file is opened O_PATH
// first, which never blocks or wakes a device, its descriptor is fstat-ed, and only a regular file
// is reopened for reading, so a FIFO cannot hold one of libuv's four threads.
// openat2 needs Linux 5.6 or newer; without it (or when a seccomp policy refuses it) workspace file
// access fails with an error that says so, rather than falling back to path strings.
import { constants as fsConstants, close, closeSync, fstat, fstatSync, type Stats } from "node:fs";
import { lstat, readdir, readlink, realpath, stat } from "node:fs/promises";
import { createRequire } from "node:module";
import { constants as osConstants } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { WorkspaceError } from "./errors";

type Native = {
  open(dirFd: number, path: string, flags: number, mode: number, resolve: number): number;
  RESOLVE_BENEATH: number;
  RESOLVE_NO_MAGICLINKS: number;
  RESOLVE_NO_SYMLINKS: number;
  /** Not in Node's fs.constants. */
  O_PATH: number;
};

const NATIVE_MODULE = path.resolve(import.meta.dirname, "../sandbox/native/build/Release/beneath.node");
const AT_FDCWD = -100;
const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW } = fsConstants;
/** Links followed when resolving, as git and editors follow them in a repository. */
export const MAX_LINK_HOPS = 40;

const fstatFd = promisify(fstat);
const closeFd = promisify(close);

const errnoNames = new Map<number, string>(Object.entries(osConstants.errno).map(([name, value]) => [value, name]));

let loaded: Native | Error | undefined;

function native(): Native {
  if (loaded === undefined) {
    try {
      loaded = createRequire(import.meta.url)(NATIVE_MODULE) as Native;
    } catch (error) {
      loaded = new WorkspaceError(
        "IO_ERROR",
        `Workspace files cannot be opened safely: the server's native module is not built or does not load (${(error as Error).message}). Run \`node scripts/build-native.mjs\` and restart the server.`,
      );
    }
  }
  if (loaded instanceof Error) throw loaded;
  return loaded;
}

/** A Node-style error (code, syscall, path) from the native call's errno, so fromFsError maps it. */
function systemError(error: unknown, rel: string): Error {
  const errno = (error as { errno?: unknown }).errno;
  if (typeof errno !== "number") return error as Error;
  const code = errnoNames.get(errno) ?? "EIO";
  if (code === "ENOSYS") {
    return new WorkspaceError(
      "IO_ERROR",
      "Workspace files cannot be opened safely on this system: the server needs Linux 5.6 or newer (the openat2 system call), and a container's seccomp policy must allow openat2. Upgrade the kernel or the container runtime.",
    );
  }
  return Object.assign(new Error(`${code}: ${(error as Error).message}, '${rel}'`), {
    code,
    errno: -errno,
    syscall: "openat2",
    path: rel,
  });
}

/** The workspace-relative path as openat2 takes it: "." for the root itself. */
function relPath(rel: string): string {
  return rel === "" ? "." : rel;
}

/**
 * Opens `rel` (root-relative, no leading slash) beneath the folder `dirFd`. Links inside are
 * followed unless `follow` is false (then any link on the way fails with ELOOP); the last component
 * is followed unless `flags` has O_NOFOLLOW. The caller closes the descriptor.
 */
export function openAt(
  dirFd: number,
  rel: string,
  flags: number,
  options: { mode?: number; follow?: boolean } = {},
): number {
  const api = native();
  const resolve =
    api.RESOLVE_BENEATH | api.RESOLVE_NO_MAGICLINKS | (options.follow === false ? api.RESOLVE_NO_SYMLINKS : 0);
  try {
    return api.open(dirFd, relPath(rel), flags, options.mode ?? 0o666, resolve);
  } catch (error) {
    throw systemError(error, rel);
  }
}

/** O_PATH: a descriptor for walking and fstat only; opening one never blocks or wakes a device. */
export function oPath(): number {
  return native().O_PATH;
}

/**
 * Opens the root itself (a path the server chose, never one a member can change) for one operation,
 * O_PATH. With `follow: false` a root that is itself a link fails (ELOOP) rather than open its target.
 */
export function openRoot(root: string, options: { follow?: boolean } = {}): number {
  try {
    return native().open(AT_FDCWD, root, oPath() | O_DIRECTORY | (options.follow === false ? O_NOFOLLOW : 0), 0, 0);
  } catch (error) {
    throw systemError(error, "");
  }
}

/** openAt from the root, the root's own descriptor closed again at once (one per operation: nothing is held open). */
export function openBeneath(
  root: string,
  rel: string,
  flags: number,
  options: { mode?: number; follow?: boolean } = {},
): number {
  const rootFd = openRoot(root);
  try {
    return openAt(rootFd, rel, flags, options);
  } finally {
    closeQuietly(rootFd);
  }
}

/** Closes a descriptor without waiting; a failure to close is nothing the caller could act on. */
export function closeQuietly(fd: number): void {
  close(fd, () => undefined);
}

/** Runs `task` with `fd` and closes it afterwards, whatever happens. */
export async function withFd<T>(fd: number, task: (fd: number) => Promise<T>): Promise<T> {
  try {
    return await task(fd);
  } finally {
    await closeFd(fd).catch(() => undefined);
  }
}

/** The magic link of an open folder, or of one entry in it: bound to the folder, not to any path. */
export function fdPath(dirFd: number, name?: string): string {
  if (name === undefined) return `/proc/self/fd/${dirFd}`;
  if (name === "" || name === "." || name === ".." || name.includes("/") || name.includes("\0")) {
    throw new WorkspaceError("INVALID_PATH", `'${name}' is not a single file name.`);
  }
  return `/proc/self/fd/${dirFd}/${name}`;
}

/** Where an open descriptor really is, relative to `root` (POSIX), or null when it is outside (cannot happen for descriptors opened here) or gone. */
export async function whereIs(root: string, fd: number): Promise<string | null> {
  const real = await readlink(fdPath(fd)).catch(() => null);
  if (real === null || real.endsWith(" (deleted)")) return null;
  const rel = path.relative(root, real);
  if (rel === "..") return null;
  if (rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)) return null;
  return rel.split(path.sep).join("/");
}

/** An open folder beneath the root and the single name of an entry in it. */
export interface ParentEntry {
  /** O_RDONLY|O_DIRECTORY descriptor of the parent (fsync-able); the caller closes it. */
  dirFd: number;
  name: string;
}

/**
 * Opens the parent folder of `rel` beneath the root (links inside followed) and returns it with the
 * entry's name: what rename, delete, lstat and creation act on. `rel` must not be the root.
 */
export function openParent(root: string, rel: string): ParentEntry {
  const name = path.posix.basename(rel);
  if (rel === "" || name === "..")
    throw new WorkspaceError(
      "INVALID_PATH",
      "The workspace root itself has no parent here. Name a file or folder inside it.",
    );
  const dirFd = openBeneath(root, path.posix.dirname(rel), O_RDONLY | O_DIRECTORY);
  return { dirFd, name };
}

/** lstat of one entry of an open folder (a link is reported as a link). */
export function lstatAt(dirFd: number, name: string): Promise<Stats> {
  return lstat(fdPath(dirFd, name));
}

/** lstat, or null when nothing is there. */
export function lstatAtIfExists(dirFd: number, name: string): Promise<Stats | null> {
  return lstatAt(dirFd, name).catch((error: unknown) => {
    if ((error as { code?: string }).code === "ENOENT") return null;
    throw error;
  });
}

/** Status of `rel` beneath the root, links inside followed (fstat of an O_PATH descriptor: nothing is opened for reading). */
export async function statBeneath(root: string, rel: string): Promise<Stats> {
  return withFd(openBeneath(root, rel, oPath()), (fd) => fstatFd(fd));
}

/** The folder `rel` beneath the root, O_PATH (nothing read): for a child's working directory. The caller closes it. */
export function openFolder(root: string, rel: string): number {
  return openBeneath(root, rel, oPath() | O_DIRECTORY);
}

/**
 * Status of `rel` beneath the open folder `dirFd` (links inside followed), synchronously: O_PATH
 * and fstat never wait on a file's contents, and a search stats thousands of matches as they stream in.
 * Null when it cannot be opened beneath the folder.
 */
export function statAtSync(dirFd: number, rel: string): Stats | null {
  let fd: number;
  try {
    fd = openAt(dirFd, rel, oPath());
  } catch {
    return null;
  }
  try {
    return fstatSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The folder `rel` beneath the root (O_PATH) and the names in it; the caller closes `dirFd`. */
export async function readDirBeneath(root: string, rel: string): Promise<{ dirFd: number; names: string[] }> {
  const dirFd = openFolder(root, rel);
  try {
    return { dirFd, names: await readdir(fdPath(dirFd)) };
  } catch (error) {
    closeQuietly(dirFd);
    throw error;
  }
}

/** A workspace root as the server configured it (a path no member controls): its real path, and whether it is a folder. */
export async function realRoot(root: string): Promise<{ real: string; isDirectory: boolean }> {
  const [info, real] = await Promise.all([stat(root), realpath(root)]);
  return { real, isDirectory: info.isDirectory() };
}

/**
 * Where writing to `rel` really lands: the parent folder and name of the entry, after following a
 * link at the last component (with its parent re-opened beneath the root each hop, up to 40).
 * A dangling link inside the root resolves to where the file would be created. `real` is the
 * entry's root-relative path.
 */
export async function resolveEntry(
  root: string,
  rel: string,
): Promise<ParentEntry & { real: string; info: Stats | null }> {
  let current = rel;
  for (let hop = 0; ; hop++) {
    const parent = openParent(root, current);
    let next: string;
    try {
      const info = await lstatAtIfExists(parent.dirFd, parent.name);
      const dir = await whereIs(root, parent.dirFd);
      if (dir === null) throw Object.assign(new Error(`ENOENT: the folder of '${rel}' is gone`), { code: "ENOENT" });
      if (!info?.isSymbolicLink()) return { ...parent, real: dir === "" ? parent.name : `${dir}/${parent.name}`, info };
      if (hop >= MAX_LINK_HOPS) throw Object.assign(new Error(`ELOOP: '${rel}'`), { code: "ELOOP" });
      const target = await readlink(fdPath(parent.dirFd, parent.name));
      if (path.posix.isAbsolute(target))
        throw Object.assign(new Error(`EXDEV: '${rel}' is an absolute link`), { code: "EXDEV" });
      next = path.posix.normalize(path.posix.join(dir, target)).replace(/\/+$/, "");
    } catch (error) {
      closeQuietly(parent.dirFd);
      throw error;
    }
    // The next hop starts from the root again; this folder is done with (closed exactly once).
    closeQuietly(parent.dirFd);
    if (next === ".." || next.startsWith("../"))
      throw Object.assign(new Error(`EXDEV: '${rel}' links outside`), { code: "EXDEV" });
    if (next === ".") throw Object.assign(new Error(`EISDIR: '${rel}' is the root`), { code: "EISDIR" });
    current = next;
  }
}
