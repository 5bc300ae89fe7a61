import type { Stats } from "node:fs";
import path from "node:path";
import { conflictVersionTag } from "@/lib/fs-schemas";
import { atomicWriteAt } from "./atomic-write";
import { closeQuietly, resolveEntry, statBeneath, type ParentEntry } from "./beneath";
import { notAFile, readRegularAt } from "./beneath-files";
import { mkdirBeneath } from "./beneath-entries";
import { WorkspaceError, errnoCode, fromFsError } from "./errors";
import { MAX_FILE_BYTES, shown, tooLarge, versionOf } from "./file-limits";
import type { ResolvedPath } from "./paths";
import { DEFAULT_FORMAT, decode, encode, type TextFormat } from "./text-codec";
import { ensureRoom, spent } from "./write-budget";

// Saving text into a workspace (Workspace.write and create): the version check against what is on
// disk, the file's own format kept, the disk budget, and an atomic write beneath the root.

export interface WriteOptions {
  /** The version last read; a different version on disk is a CONFLICT. null: the file must not exist. */
  expectedVersion?: string | null;
  createParents?: boolean;
  /** Overrides the format kept from the existing file (e.g. the user switched to CRLF). */
  format?: Partial<TextFormat>;
}

/** The workspace saved into: its real root, and the object its disk budget is attached to (write-budget.ts). */
export type SaveInto = { root: string; budgetKey: object };

/** The parent folder of a root-relative path ("" for the root's children). */
export function parentOf(rel: string): string {
  const parent = path.posix.dirname(rel);
  return parent === "." ? "" : parent;
}

/** Makes sure the folder `r` goes into exists (creating it and its parents when asked). */
export async function ensureParent(root: string, r: ResolvedPath, createParents: boolean): Promise<void> {
  const parentPath = parentOf(r.requested);
  const info = await statBeneath(root, parentPath).catch(() => null);
  if (info?.isDirectory()) return;
  if (info)
    throw new WorkspaceError("NOT_A_DIRECTORY", `${shown(parentPath)} is a file, so nothing can be put inside it.`);
  if (!createParents) {
    throw new WorkspaceError(
      "NOT_FOUND",
      `The folder ${shown(parentPath)} does not exist. Create it first, or ask for parent folders to be created.`,
    );
  }
  await mkdirBeneath(root, parentPath).catch((error: unknown) => Promise.reject(fromFsError(error, parentPath)));
}

/**
 * Where a write to `r` lands: a link at the last component is followed, as an editor saving
 * through it would, each hop re-opened beneath the root (beneath.ts resolveEntry); null while
 * its folder does not exist.
 */
async function writeTarget(root: string, r: ResolvedPath): Promise<(ParentEntry & { info: Stats | null }) | null> {
  try {
    return await resolveEntry(root, r.requested);
  } catch (error) {
    const code = errnoCode(error);
    if (code === "ENOENT") return null;
    throw fromFsError(error, r.requested);
  }
}

/**
 * Saves text atomically, keeping the file's encoding, BOM and line endings (see `encode` for the
 * line-ending rule). `creating`: the file must not exist yet. Returns the new version.
 */
export async function saveText(
  into: SaveInto,
  r: ResolvedPath,
  content: string,
  options: WriteOptions,
  creating: boolean,
): Promise<{ version: string }> {
  if (r.requested === "")
    throw new WorkspaceError("IS_DIRECTORY", "The workspace root is a folder, not a file. Name a file inside it.");
  let target = await writeTarget(into.root, r);
  try {
    const info = target?.info ?? null;
    if (info?.isDirectory()) {
      throw creating
        ? new WorkspaceError("EXISTS", `${shown(r.requested)} already exists as a folder. Choose another name.`)
        : new WorkspaceError("IS_DIRECTORY", `${shown(r.requested)} is a folder, not a file. Name a file inside it.`);
    }
    if (info && !info.isFile()) throw notAFile(shown(r.requested), info);
    if (info && info.size > MAX_FILE_BYTES) throw tooLarge(r.requested, info.size);
    const current = target && info ? await readEntry(target, r.requested) : null;
    const currentVersion = current ? versionOf(current) : null;
    if (options.expectedVersion !== undefined && options.expectedVersion !== currentVersion) {
      if (creating)
        throw new WorkspaceError("EXISTS", `${shown(r.requested)} already exists. Open it, or choose another name.`);
      throw conflict(r.requested, currentVersion);
    }
    const decoded = current ? decode(current, path.posix.basename(r.path)) : null;
    const kept =
      decoded?.kind === "text" ? { encoding: decoded.encoding, bom: decoded.bom, eol: decoded.eol } : DEFAULT_FORMAT;
    const bytes = encode(content, { ...kept, ...options.format });
    if (bytes.length > MAX_FILE_BYTES) throw tooLarge(r.requested, bytes.length);
    // A new file counts even when empty: a project past its disk budget makes none.
    const growth = bytes.length - (current?.length ?? 0);
    await ensureRoom(into.budgetKey, current === null ? Math.max(growth, 1) : growth, shown(r.requested));
    if (!target) {
      await ensureParent(into.root, r, options.createParents ?? false);
      target = await writeTarget(into.root, r);
      if (!target)
        throw new WorkspaceError(
          "NOT_FOUND",
          `The folder of ${shown(r.requested)} was removed while saving. Save again.`,
        );
    }
    try {
      await atomicWriteAt(target.dirFd, target.name, bytes, {
        mode: info ? info.mode & 0o7777 : undefined,
        exclusive: current === null,
      });
    } catch (error) {
      if (errnoCode(error) !== "EEXIST") throw fromFsError(error, r.requested);
      if (creating)
        throw new WorkspaceError("EXISTS", `${shown(r.requested)} already exists. Open it, or choose another name.`);
      throw conflict(r.requested, versionOf(await readEntry(target, r.requested)));
    }
    spent(into.budgetKey, growth);
    return { version: versionOf(bytes) };
  } finally {
    if (target) closeQuietly(target.dirFd);
  }
}

/** The current bytes of a write target (a regular file, at most MAX_FILE_BYTES). */
async function readEntry(target: ParentEntry, requested: string): Promise<Buffer> {
  const { bytes, info } = await readRegularAt(target.dirFd, target.name, shown(requested), MAX_FILE_BYTES).catch(
    (error: unknown) => Promise.reject(fromFsError(error, requested)),
  );
  if (bytes === null) throw tooLarge(requested, info.size);
  return bytes;
}

function conflict(p: string, currentVersion: string | null): WorkspaceError {
  const what =
    currentVersion === null
      ? `${shown(p)} was deleted since you read it. Write it with expectedVersion null to create it again.`
      : `${shown(p)} changed on disk since you read it (another person or the agent saved it). Read it again, reapply your change, and write with the new version.`;
  return new WorkspaceError("CONFLICT", `${what} ${conflictVersionTag(currentVersion)}`, { currentVersion });
}
