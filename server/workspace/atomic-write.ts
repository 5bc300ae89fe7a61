import { randomBytes } from "node:crypto";
import { openParent, withFd } from "./beneath";
import { fsyncDescriptor, linkAt, renameAt, unlinkAt, writeNewFileAt } from "./beneath-entries";
import { errnoCode } from "./errors";

const TEMP_PREFIX = ".tandem-";
const TEMP_SUFFIX = ".tmp";

/** True for the temporary files atomicWriteAt leaves for an instant beside the file it replaces. */
export function isTempFileName(name: string): boolean {
  return name.startsWith(TEMP_PREFIX) && name.endsWith(TEMP_SUFFIX);
}

export interface AtomicWriteOptions {
  /** File mode for the result (keeps an executable script executable). */
  mode?: number;
  /** Fail with EEXIST instead of replacing a file that appeared meanwhile. */
  exclusive?: boolean;
}

/** A temp file's name beside `name`: hidden from listings and the watcher, never anyone's file. */
function tempName(name: string): string {
  return `${TEMP_PREFIX}${name}.${randomBytes(6).toString("hex")}${TEMP_SUFFIX}`;
}

/**
 * Writes through a temp file in an open folder (beneath.ts), so a reader sees the old bytes or the
 * new ones, never half a file, and a crash before the rename leaves the old file untouched. The
 * temp file is created there with O_CREAT|O_EXCL|O_NOFOLLOW and renamed (or, `exclusive`, hard-linked) over `name` in the same
 * folder, so a folder swapped for a link meanwhile cannot send the bytes anywhere else. `name` is
 * the entry itself: a link there is replaced, not followed (callers resolve links first,
 * beneath.ts resolveEntry). `dirFd` must be an O_RDONLY folder descriptor (it is fsync-ed).
 */
export async function atomicWriteAt(
  dirFd: number,
  name: string,
  data: Buffer,
  options: AtomicWriteOptions = {},
): Promise<void> {
  const temp = tempName(name);
  try {
    await writeNewFileAt(dirFd, temp, data, options.mode);
    if (options.exclusive) await linkNoReplaceAt(dirFd, temp, name);
    else await renameAt(dirFd, temp, dirFd, name);
  } catch (error) {
    await unlinkAt(dirFd, temp).catch(() => undefined);
    throw error;
  }
  await fsyncDescriptor(dirFd).catch(() => undefined);
}

/** atomicWriteAt of the entry `rel` (root-relative; its folder must exist), its parent opened beneath the root. */
export async function atomicWriteBeneath(
  root: string,
  rel: string,
  data: Buffer,
  options: AtomicWriteOptions = {},
): Promise<void> {
  const { dirFd, name } = openParent(root, rel);
  await withFd(dirFd, () => atomicWriteAt(dirFd, name, data, options));
}

async function linkNoReplaceAt(dirFd: number, temp: string, name: string): Promise<void> {
  try {
    await linkAt(dirFd, temp, dirFd, name);
  } catch (error) {
    const code = errnoCode(error);
    // Some filesystems have no hard links; fall back to a rename, which a race could clobber.
    if (code !== "EPERM" && code !== "ENOTSUP" && code !== "ENOSYS" && code !== "EXDEV") throw error;
    await renameAt(dirFd, temp, dirFd, name);
    return;
  }
  await unlinkAt(dirFd, temp);
}
