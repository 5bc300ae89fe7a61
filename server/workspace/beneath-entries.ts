import { constants as fsConstants, fchmod, fstat, fsync, write } from "node:fs";
import { chmod, link, mkdir, readdir, rename, rmdir, unlink } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import {
  MAX_LINK_HOPS,
  closeQuietly,
  fdPath,
  lstatAt,
  oPath,
  openAt,
  openBeneath,
  openParent,
  withFd,
} from "./beneath";

// Changing the entries of a workspace's folders: creating folders and files, renaming, linking,
// removing, each on a folder opened beneath the root (beneath.ts) and one name in it, named
// through the folder's magic link so a single name is never followed.

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_DIRECTORY } = fsConstants;

const writeFd = promisify(write);
const fsyncFd = promisify(fsync);
const fchmodFd = promisify(fchmod);
const fstatFd = promisify(fstat);

/** Creates the folder `rel` and any missing parents beneath the root; a link inside is followed as a folder. */
export async function mkdirBeneath(root: string, rel: string, mode = 0o777): Promise<void> {
  if (rel === "") return;
  try {
    closeQuietly(openBeneath(root, rel, oPath() | O_DIRECTORY));
    return;
  } catch (error) {
    if ((error as { code?: string }).code !== "ENOENT") throw error;
  }
  await mkdirBeneath(root, path.posix.dirname(rel) === "." ? "" : path.posix.dirname(rel), mode);
  const parent = openParent(root, rel);
  await withFd(parent.dirFd, async () => {
    await mkdir(fdPath(parent.dirFd, parent.name), mode).catch(async (error: unknown) => {
      // Made meanwhile (or a link to a folder inside): fine if it is a folder now.
      if ((error as { code?: string }).code !== "EEXIST") throw error;
      closeQuietly(openAt(parent.dirFd, parent.name, oPath() | O_DIRECTORY));
    });
  });
}

/** Creates `name` in an open folder, exclusively and without following a link there. */
export function createAt(dirFd: number, name: string, mode = 0o666): number {
  fdPath(dirFd, name); // a single name
  return openAt(dirFd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, { mode, follow: false });
}

/** Writes all of `data` to `fd`. */
export async function writeAll(fd: number, data: Buffer): Promise<void> {
  let offset = 0;
  while (offset < data.length) offset += (await writeFd(fd, data, offset, data.length - offset, null)).bytesWritten;
}

export { fsyncFd as fsyncDescriptor };

/**
 * Creates `name` in an open folder (exclusively, never through a link) with `data`, mode `mode`
 * whatever the umask, and fsyncs it: the temp files of atomic writes and transactions.
 */
export async function writeNewFileAt(dirFd: number, name: string, data: Buffer, mode?: number): Promise<void> {
  const fd = createAt(dirFd, name, mode ?? 0o666);
  await withFd(fd, async () => {
    await writeAll(fd, data);
    if (mode !== undefined) await fchmodFd(fd, mode);
    await fsyncFd(fd);
  });
}

/** Renames one entry between two open folders (the last component is the entry itself, never followed). */
export function renameAt(fromDir: number, fromName: string, toDir: number, toName: string): Promise<void> {
  return rename(fdPath(fromDir, fromName), fdPath(toDir, toName));
}

/** A hard link `toName` in `toDir` to the entry `fromName` in `fromDir`; EEXIST when something is there. */
export function linkAt(fromDir: number, fromName: string, toDir: number, toName: string): Promise<void> {
  return link(fdPath(fromDir, fromName), fdPath(toDir, toName));
}

/** Creates the folder `name` in an open folder; EEXIST when anything (a link too) is there. */
export function mkdirAt(dirFd: number, name: string, mode = 0o777): Promise<void> {
  return mkdir(fdPath(dirFd, name), mode).then(() => undefined);
}

export function unlinkAt(dirFd: number, name: string): Promise<void> {
  return unlink(fdPath(dirFd, name));
}

/**
 * Removes the entry `name` of an open folder and, for a folder, everything in it. Each folder is
 * opened with O_NOFOLLOW before it is emptied, so a folder swapped for a link meanwhile is never
 * walked into: the link itself is removed.
 */
export async function removeTreeAt(dirFd: number, name: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const info = await lstatAt(dirFd, name);
    if (!info.isDirectory()) {
      await unlinkAt(dirFd, name);
      return;
    }
    let childFd: number;
    try {
      childFd = openAt(dirFd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, { follow: false });
    } catch (error) {
      const code = (error as { code?: string }).code;
      // Swapped for a link or a file between the lstat and the open: look again.
      if ((code === "ELOOP" || code === "ENOTDIR") && attempt < MAX_LINK_HOPS) continue;
      throw error;
    }
    await withFd(childFd, async () => {
      for (const child of await readdir(fdPath(childFd))) await removeTreeAt(childFd, child);
    });
    try {
      await rmdir(fdPath(dirFd, name));
      return;
    } catch (error) {
      const code = (error as { code?: string }).code;
      if ((code === "ENOTDIR" || code === "ENOTEMPTY") && attempt < MAX_LINK_HOPS) continue;
      throw error;
    }
  }
}

/**
 * Makes a regular file executable as git does (each read bit gives its execute bit). The file is
 * opened beneath the root as a path-only descriptor, no link followed anywhere on the way (nothing
 * is read and a FIFO or device is never opened for I/O), checked to be a regular file, and changed
 * through that descriptor's magic link, so the inode checked is the inode changed. Anything else is
 * left alone: false.
 */
export async function makeExecutableBeneath(root: string, rel: string): Promise<boolean> {
  let fd: number;
  try {
    fd = openBeneath(root, rel, oPath() | O_NOFOLLOW, { follow: false });
  } catch {
    return false;
  }
  return withFd(fd, async () => {
    const info = await fstatFd(fd);
    if (!info.isFile()) return false;
    const mode = info.mode & 0o7777;
    const executable = mode | ((mode & 0o444) >> 2);
    if (executable !== mode) await chmod(fdPath(fd), executable);
    return true;
  });
}
