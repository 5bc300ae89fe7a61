// Regular files opened beneath a workspace root (beneath.ts): data is only ever read from a
// regular file, opened O_PATH first (which never blocks or wakes a device), its descriptor
// fstat-ed, and only then reopened for reading; written only where no link or FIFO stands.
import { constants as fsConstants, fstat, open, read, type Stats } from "node:fs";
import { promisify } from "node:util";
import { closeQuietly, fdPath, oPath, openAt, openParent, openRoot, whereIs, withFd } from "./beneath";
import { WorkspaceError } from "./errors";

const { O_RDONLY, O_WRONLY, O_CREAT, O_TRUNC, O_NOFOLLOW, O_NONBLOCK, O_NOCTTY } = fsConstants;
const fstatFd = promisify(fstat);
const readFd = promisify(read);
const openPath = promisify(open);

function kindOf(info: Stats): string {
  if (info.isFIFO()) return "a named pipe (FIFO)";
  if (info.isSocket()) return "a socket";
  if (info.isCharacterDevice() || info.isBlockDevice()) return "a device";
  return "not a regular file";
}

/** The refusal for anything that is not a regular file or a folder. */
export function notAFile(shown: string, info: Stats): WorkspaceError {
  return new WorkspaceError(
    "NOT_A_FILE",
    `${shown} is ${kindOf(info)}, not a file; only regular files can be opened here. Use the terminal to work with it.`,
  );
}

/**
 * Opens `rel` beneath the folder `dirFd` for reading if, and only if, it is a regular file: O_PATH
 * first (never blocks, wakes no device), fstat of that descriptor, then a reopen of the same inode
 * through its magic link. A folder fails with EISDIR; a FIFO, socket or device with NOT_A_FILE
 * (`shown` names it); with `followLast: false` a link there fails with ELOOP.
 */
export async function openRegularAt(
  dirFd: number,
  rel: string,
  shown: string,
  options: { followLast?: boolean } = {},
): Promise<{ fd: number; info: Stats }> {
  const pathFd = openAt(dirFd, rel, oPath() | (options.followLast === false ? O_NOFOLLOW : 0));
  return withFd(pathFd, async () => {
    const info = await fstatFd(pathFd);
    if (info.isDirectory()) throw Object.assign(new Error(`EISDIR: '${rel}' is a folder`), { code: "EISDIR" });
    if (info.isSymbolicLink()) throw Object.assign(new Error(`ELOOP: '${rel}' is a link`), { code: "ELOOP" });
    if (!info.isFile()) throw notAFile(shown, info);
    const fd = await openPath(fdPath(pathFd), O_RDONLY | O_NONBLOCK | O_NOCTTY);
    return { fd, info };
  });
}

/**
 * Reads all of an open regular file, at most `maxBytes`: a file that grows past the limit while it is
 * read returns null instead of more (the caller reports it as too large).
 */
export async function readFdBounded(fd: number, sizeHint: number, maxBytes: number): Promise<Buffer | null> {
  let buffer = Buffer.allocUnsafe(Math.min(Math.max(sizeHint, 0), maxBytes) + 1);
  let length = 0;
  for (;;) {
    if (length === buffer.length) {
      if (length > maxBytes) return null;
      const grown = Buffer.allocUnsafe(Math.min(buffer.length * 2, maxBytes + 1));
      buffer.copy(grown, 0, 0, length);
      buffer = grown;
    }
    const { bytesRead } = await readFd(fd, buffer, length, buffer.length - length, null);
    if (bytesRead === 0) break;
    length += bytesRead;
  }
  return length > maxBytes ? null : buffer.subarray(0, length);
}

/** Bytes and status of the regular file `rel` beneath `dirFd`; null bytes when it is larger than `maxBytes`. */
export async function readRegularAt(
  dirFd: number,
  rel: string,
  shown: string,
  maxBytes: number,
): Promise<{ bytes: Buffer | null; info: Stats }> {
  const { fd, info } = await openRegularAt(dirFd, rel, shown);
  return withFd(fd, async () => ({
    info,
    bytes: info.size > maxBytes ? null : await readFdBounded(fd, info.size, maxBytes),
  }));
}

/** The last `maxBytes` of the regular file `rel` (a log), and whether anything before them was left out. */
export async function readTail(root: string, rel: string, maxBytes: number): Promise<{ bytes: Buffer; cut: boolean }> {
  const rootFd = openRoot(root);
  try {
    const { fd, info } = await openRegularAt(rootFd, rel, `'${rel}'`);
    return await withFd(fd, async () => {
      const start = Math.max(0, info.size - maxBytes);
      const buffer = Buffer.allocUnsafe(Math.min(info.size, maxBytes));
      let length = 0;
      while (length < buffer.length) {
        const { bytesRead } = await readFd(fd, buffer, length, buffer.length - length, start + length);
        if (bytesRead === 0) break;
        length += bytesRead;
      }
      return { bytes: buffer.subarray(0, length), cut: start > 0 };
    });
  } finally {
    closeQuietly(rootFd);
  }
}

/**
 * Opens `rel` beneath the root for writing from the start (created or truncated, as a log): never
 * through a link at the last component, and only a regular file (O_NONBLOCK: a FIFO there fails
 * instead of waiting for a reader). The caller closes the descriptor (or a stream given it does).
 */
export async function openForWrite(root: string, rel: string, shown: string): Promise<number> {
  const { dirFd, name } = openParent(root, rel);
  const fd = await withFd(dirFd, async () =>
    openAt(dirFd, name, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, { follow: false }),
  );
  try {
    const info = await fstatFd(fd);
    if (!info.isFile()) throw notAFile(shown, info);
    return fd;
  } catch (error) {
    closeQuietly(fd);
    throw error;
  }
}

/**
 * readRegularAt from the root. `admit`, when given, judges the file by where the opened descriptor
 * really is (root-relative, links resolved), before a byte is read: a caller that may read only
 * some files decides by what was opened, not by a path resolved earlier that a link could have
 * replaced since. It throws to refuse.
 */
export async function readRegular(
  root: string,
  rel: string,
  shown: string,
  maxBytes: number,
  admit?: (real: string | null) => void,
): Promise<{ bytes: Buffer | null; info: Stats }> {
  const rootFd = openRoot(root);
  try {
    if (!admit) return await readRegularAt(rootFd, rel, shown, maxBytes);
    const { fd, info } = await openRegularAt(rootFd, rel, shown);
    return await withFd(fd, async () => {
      admit(await whereIs(root, fd));
      return { info, bytes: info.size > maxBytes ? null : await readFdBounded(fd, info.size, maxBytes) };
    });
  } finally {
    closeQuietly(rootFd);
  }
}
