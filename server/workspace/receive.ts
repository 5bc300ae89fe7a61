import { randomBytes } from "node:crypto";
import { createReadStream, type ReadStream } from "node:fs";
import { link, lstat, mkdir, open, rename, stat, unlink } from "node:fs/promises";
import path from "node:path";
import type { Readable } from "node:stream";
import { WorkspaceError, errnoCode, fromFsError } from "./errors";
import { toPosix } from "./paths";
import type { Workspace } from "./workspace";

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

/**
 * A name in `folder` (root-relative) that is free now: `name` itself, else "name (1)", "(2)", …
 * For keep-both uploads of a whole folder, the caller claims the free folder name by creating it.
 */
export async function freeName(workspace: Workspace, folder: string, name: string): Promise<string> {
  for (let n = 0; n < 10_000; n++) {
    const candidate = n === 0 ? name : numberedName(name, n);
    const r = await workspace.resolve(folder ? `${folder}/${candidate}` : candidate);
    if (!(await lstat(r.entry).catch(() => null))) return candidate;
  }
  throw new WorkspaceError("EXISTS", `Too many copies of '${name}' in ${folder || "the workspace root"}; rename some first.`);
}

/**
 * Streams `source` into the workspace at `input` (parents created): into a temp file beside the
 * target, which is renamed into place only once complete, inside the workspace's mutation queue.
 * Refuses past `maxBytes` (TOO_LARGE, nothing left behind). Returns the path written, which
 * differs from `input` when keeping both.
 */
export async function receiveFile(workspace: Workspace, input: string, source: Readable, options: { onExists: OnExists; maxBytes: number }): Promise<{ path: string; size: number }> {
  const target = await workspace.resolve(input);
  if (target.entry === workspace.root) throw new WorkspaceError("INVALID_PATH", "Name a file to upload, not the workspace root.");
  const folder = path.dirname(target.absolute);
  await mkdir(folder, { recursive: true }).catch((error: unknown) => Promise.reject(fromFsError(error, toPosix(path.dirname(target.requested)))));
  // The folder may have been created through a link: check again where the bytes would land.
  const parent = await workspace.resolve(toPosix(path.relative(workspace.root, folder)));
  if (!(await stat(parent.absolute)).isDirectory()) throw new WorkspaceError("NOT_A_DIRECTORY", `'${parent.requested}' is a file, so nothing can be put inside it.`);
  const temp = path.join(parent.absolute, `.tandem-${path.basename(target.absolute)}.${randomBytes(6).toString("hex")}.tmp`);
  let size = 0;
  const handle = await open(temp, "wx", 0o644);
  try {
    try {
      // Not destroyed on an early exit: an upload's parser must be able to move past this file.
      for await (const chunk of source.iterator({ destroyOnReturn: false })) {
        size += (chunk as Buffer).length;
        if (size > options.maxBytes) throw new TooLargeError(`'${target.requested}' is over the upload limit of ${Math.round(options.maxBytes / 1024 / 1024)} MB.`);
        await handle.write(chunk as Buffer);
      }
      await handle.sync();
    } finally {
      await handle.close();
    }
    const written = await workspace.exclusive(() => place(workspace, temp, parent.absolute, path.basename(target.absolute), options.onExists));
    return { path: toPosix(path.relative(workspace.root, written)), size };
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
}

async function place(workspace: Workspace, temp: string, folder: string, name: string, onExists: OnExists): Promise<string> {
  const shown = (p: string) => toPosix(path.relative(workspace.root, p));
  const target = path.join(folder, name);
  const existing = await lstat(target).catch(() => null);
  if (existing?.isDirectory()) {
    if (onExists !== "keep-both") throw new WorkspaceError("EXISTS", `'${shown(target)}' is a folder; a file cannot replace it. Keep both, or rename it first.`);
  } else if (onExists === "replace") {
    await rename(temp, target).catch((error: unknown) => Promise.reject(fromFsError(error, shown(target))));
    return target;
  }
  for (let n = 0; n < 10_000; n++) {
    const candidate = path.join(folder, n === 0 ? name : numberedName(name, n));
    try {
      await linkNoReplace(temp, candidate);
      return candidate;
    } catch (error) {
      if (errnoCode(error) !== "EEXIST") throw fromFsError(error, shown(candidate));
      if (onExists === "refuse") throw new WorkspaceError("EXISTS", `'${shown(candidate)}' already exists. Choose to replace it or keep both.`);
    }
  }
  throw new WorkspaceError("EXISTS", `Too many copies of '${name}'; rename some first.`);
}

/** Puts `temp` at `target` only if nothing is there (a hard link fails with EEXIST, a rename would not). */
async function linkNoReplace(temp: string, target: string): Promise<void> {
  try {
    await link(temp, target);
  } catch (error) {
    const code = errnoCode(error);
    // Filesystems without hard links: check, then rename (a race could still clobber; see atomic-write).
    if (code !== "EPERM" && code !== "ENOTSUP" && code !== "ENOSYS" && code !== "EXDEV") throw error;
    if (await lstat(target).catch(() => null)) throw Object.assign(new Error("exists"), { code: "EEXIST" });
    await rename(temp, target);
    return;
  }
  await unlink(temp);
}

/** A file of the workspace as a stream (downloads), contained like every read. */
export async function openFileStream(workspace: Workspace, input: string): Promise<{ path: string; stream: ReadStream; size: number; mtime: Date; mode: number }> {
  const r = await workspace.resolve(input);
  const info = await stat(r.absolute).catch((error: unknown) => Promise.reject(fromFsError(error, r.requested)));
  if (info.isDirectory()) throw new WorkspaceError("IS_DIRECTORY", `'${r.requested}' is a folder.`);
  return { path: r.requested, stream: createReadStream(r.absolute), size: info.size, mtime: info.mtime, mode: info.mode };
}
