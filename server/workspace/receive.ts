import { randomBytes } from "node:crypto";
import { createReadStream, type ReadStream } from "node:fs";
import path from "node:path";
import type { Readable } from "node:stream";
import { lstatAtIfExists, openParent, openFolder, resolveEntry, withFd, type ParentEntry } from "./beneath";
import { openRegularAt } from "./beneath-files";
import { createAt, fsyncDescriptor, linkAt, mkdirBeneath, renameAt, unlinkAt, writeAll } from "./beneath-entries";
import { WorkspaceError, errnoCode, fromFsError } from "./errors";
import type { Workspace } from "./workspace";
import { outgrew, roomFor, spent } from "./write-budget";

// Uploads and downloads, opened beneath the workspace root (beneath.ts) like every other file
// access: the folder a file lands in is opened once and everything after (the temp file, the
// rename into place, the check for a taken name) acts on that descriptor, so a folder swapped for
// a link meanwhile cannot send the bytes anywhere else; a download reads only a regular file,
// through the descriptor that was checked.

/** What to do when an uploaded name is taken: refuse, overwrite it, or keep both ("name (1).ext"). */
export type OnExists = "refuse" | "replace" | "keep-both";

export class TooLargeError extends WorkspaceError {
  constructor(message: string) {
    super("TOO_LARGE", message);
  }
}

/** "report.pdf" → "report (1).pdf", "src" → "src (1)", ".env" → ".env (1)". */
export function numberedName(name: string, n: number): string {
  const dot = name.lastIndexOf(".");
  if (dot <= 0) return `${name} (${n})`;
  return `${name.slice(0, dot)} (${n})${name.slice(dot)}`;
}

const parentOf = (rel: string) => (path.posix.dirname(rel) === "." ? "" : path.posix.dirname(rel));
const join = (dir: string, name: string) => (dir ? `${dir}/${name}` : name);

/**
 * A name in `folder` (root-relative) that is free now: `name` itself, else "name (1)", "(2)", …
 * For keep-both uploads of a whole folder, the caller claims the free folder name by creating it.
 */
export async function freeName(workspace: Workspace, folder: string, name: string): Promise<string> {
  const dir = await workspace.resolve(folder);
  let parent: ParentEntry;
  try {
    parent = openParent(workspace.root, join(dir.requested, name));
  } catch (error) {
    if (errnoCode(error) === "ENOENT") return name; // no folder yet: every name is free
    throw fromFsError(error, dir.requested);
  }
  return withFd(parent.dirFd, async () => {
    for (let n = 0; n < 10_000; n++) {
      const candidate = n === 0 ? name : numberedName(name, n);
      if (!(await lstatAtIfExists(parent.dirFd, candidate))) return candidate;
    }
    throw new WorkspaceError(
      "EXISTS",
      `Too many copies of '${name}' in ${folder || "the workspace root"}; rename some first.`,
    );
  });
}

/**
 * Streams `source` into the workspace at `input` (parents created): into a temp file beside the
 * target, which is renamed into place only once complete, inside the workspace's mutation queue.
 * Refuses past `maxBytes` (TOO_LARGE) or past what is left of the project's disk budget
 * (DISK_FULL), leaving nothing behind. Returns the path written, which differs from `input` when
 * keeping both.
 */
export async function receiveFile(
  workspace: Workspace,
  input: string,
  source: Readable,
  options: { onExists: OnExists; maxBytes: number },
): Promise<{ path: string; size: number }> {
  const target = await workspace.resolve(input);
  const rel = target.requested;
  if (rel === "") throw new WorkspaceError("INVALID_PATH", "Name a file to upload, not the workspace root.");
  const room = await roomFor(workspace);
  await mkdirBeneath(workspace.root, parentOf(rel)).catch((error: unknown) =>
    Promise.reject(fromFsError(error, parentOf(rel))),
  );
  // A link at the name itself is followed as a save through it would be, each hop beneath the root.
  const entry = await resolveEntry(workspace.root, rel).catch((error: unknown) =>
    Promise.reject(
      errnoCode(error) === "ENOTDIR"
        ? new WorkspaceError("NOT_A_DIRECTORY", `'${parentOf(rel)}' is a file, so nothing can be put inside it.`)
        : fromFsError(error, rel),
    ),
  );
  return withFd(entry.dirFd, async () => {
    const temp = `.tandem-${entry.name}.${randomBytes(6).toString("hex")}.tmp`;
    let size = 0;
    const fd = createAt(entry.dirFd, temp, 0o644);
    try {
      await withFd(fd, async () => {
        // Not destroyed on an early exit: an upload's parser must be able to move past this file.
        for await (const chunk of source.iterator({ destroyOnReturn: false })) {
          size += (chunk as Buffer).length;
          if (size > options.maxBytes)
            throw new TooLargeError(
              `'${rel}' is over the upload limit of ${Math.round(options.maxBytes / 1024 / 1024)} MB.`,
            );
          if (size > room) throw outgrew(workspace, `'${rel}'`, room);
          await writeAll(fd, chunk as Buffer);
        }
        await fsyncDescriptor(fd);
      });
      const name = await workspace.exclusive(() =>
        place(entry.dirFd, temp, entry.name, parentOf(entry.real), options.onExists),
      );
      spent(workspace, size);
      return { path: join(parentOf(entry.real), name), size };
    } catch (error) {
      await unlinkAt(entry.dirFd, temp).catch(() => undefined);
      throw error;
    }
  });
}

/** Puts the temp file in place in the open folder `dirFd` (`folder`, root-relative, for messages); returns the name used. */
async function place(dirFd: number, temp: string, name: string, folder: string, onExists: OnExists): Promise<string> {
  const shown = (n: string) => join(folder, n);
  const existing = await lstatAtIfExists(dirFd, name);
  if (existing?.isDirectory()) {
    if (onExists !== "keep-both")
      throw new WorkspaceError(
        "EXISTS",
        `'${shown(name)}' is a folder; a file cannot replace it. Keep both, or rename it first.`,
      );
  } else if (onExists === "replace") {
    // The entry itself is replaced (a link there too), never followed.
    await renameAt(dirFd, temp, dirFd, name).catch((error: unknown) => Promise.reject(fromFsError(error, shown(name))));
    return name;
  }
  for (let n = 0; n < 10_000; n++) {
    const candidate = n === 0 ? name : numberedName(name, n);
    try {
      await linkNoReplace(dirFd, temp, candidate);
      return candidate;
    } catch (error) {
      if (errnoCode(error) !== "EEXIST") throw fromFsError(error, shown(candidate));
      if (onExists === "refuse")
        throw new WorkspaceError("EXISTS", `'${shown(candidate)}' already exists. Choose to replace it or keep both.`);
    }
  }
  throw new WorkspaceError("EXISTS", `Too many copies of '${name}'; rename some first.`);
}

/** Puts `temp` at `name` only if nothing is there (a hard link fails with EEXIST, a rename would not). */
async function linkNoReplace(dirFd: number, temp: string, name: string): Promise<void> {
  try {
    await linkAt(dirFd, temp, dirFd, name);
  } catch (error) {
    const code = errnoCode(error);
    // Filesystems without hard links: check, then rename (a race could still clobber; see atomic-write).
    if (code !== "EPERM" && code !== "ENOTSUP" && code !== "ENOSYS" && code !== "EXDEV") throw error;
    if (await lstatAtIfExists(dirFd, name)) throw Object.assign(new Error("exists"), { code: "EEXIST" });
    await renameAt(dirFd, temp, dirFd, name);
    return;
  }
  await unlinkAt(dirFd, temp);
}

/**
 * A regular file of the workspace as a stream (downloads), opened beneath the root: a folder is
 * IS_DIRECTORY, a FIFO, socket or device NOT_A_FILE, and the stream reads the descriptor checked.
 */
export async function openFileStream(
  workspace: Workspace,
  input: string,
): Promise<{ path: string; stream: ReadStream; size: number; mtime: Date; mode: number }> {
  const r = await workspace.resolve(input);
  const { fd, info } = await withFd(openFolder(workspace.root, ""), (rootFd) =>
    openRegularAt(rootFd, r.requested, `'${r.requested}'`),
  ).catch((error: unknown) => Promise.reject(fromFsError(error, r.requested)));
  // The path is not used: the stream reads `fd`, and closes it.
  return {
    path: r.requested,
    stream: createReadStream("", { fd, autoClose: true }),
    size: info.size,
    mtime: info.mtime,
    mode: info.mode,
  };
}
