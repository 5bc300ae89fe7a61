import { createHash } from "node:crypto";
import { lstat, mkdir, readFile, readdir, realpath, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import type { FileEntry, FileType, ReadResult } from "@/lib/fs-schemas";
import { conflictVersionTag } from "@/lib/fs-schemas";
import { atomicWrite, isTempFileName } from "./atomic-write";
import { WorkspaceError, errnoCode, fromFsError } from "./errors";
import { IgnoreRules } from "./ignore-rules";
import { isInside, resolveInside, toPosix, type ResolvedPath } from "./paths";
import { DEFAULT_FORMAT, decode, encode, type TextFormat } from "./text-codec";

/** Above this a text file opens read-only: editors and models handle it badly. */
export const READ_ONLY_BYTES = 5 * 1024 * 1024;
/** Above this a file is not read or written through the workspace at all. */
export const MAX_FILE_BYTES = 20 * 1024 * 1024;

export interface WriteOptions {
  /** The version last read; a different version on disk is a CONFLICT. null: the file must not exist. */
  expectedVersion?: string | null;
  createParents?: boolean;
  /** Overrides the format kept from the existing file (e.g. the user switched to CRLF). */
  format?: Partial<TextFormat>;
}

export interface FileStat {
  path: string;
  type: FileType;
  size: number;
  mtimeMs: number;
}

/** Content hash, so conflicts are caught even when two saves land in the same mtime tick. */
export function versionOf(bytes: Buffer): string {
  return createHash("sha256").update(bytes).digest("hex");
}

function shown(p: string): string {
  return p === "" ? "the workspace root" : `'${p}'`;
}

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function tooLarge(p: string, size: number): WorkspaceError {
  return new WorkspaceError(
    "TOO_LARGE",
    `${shown(p)} is ${megabytes(size)}; files over ${megabytes(MAX_FILE_BYTES)} are not opened or saved here. Use the terminal (head, tail, grep) to work with it.`,
  );
}

/** A project's directory on disk: the only code that reads or changes it. Every path is contained. */
export class Workspace {
  private readonly ignoreRules: IgnoreRules;
  private mutations: Promise<unknown> = Promise.resolve();

  private constructor(
    /** Real absolute path of the root. */
    readonly root: string,
    private readonly aliases: readonly string[],
  ) {
    this.ignoreRules = new IgnoreRules(root);
  }

  static async open(root: string): Promise<Workspace> {
    if (!path.isAbsolute(root)) throw new WorkspaceError("INVALID_PATH", `Workspace root '${root}' must be an absolute path.`);
    const info = await stat(root).catch((error: unknown) => Promise.reject(fromFsError(error, root)));
    if (!info.isDirectory()) throw new WorkspaceError("NOT_A_DIRECTORY", `Workspace root '${root}' is not a folder.`);
    const real = await realpath(root);
    const given = path.resolve(root);
    return new Workspace(real, given === real ? [] : [given]);
  }

  resolve(input: string): Promise<ResolvedPath> {
    return resolveInside(this.root, this.aliases, input);
  }

  async stat(input: string): Promise<FileStat> {
    const r = await this.resolve(input);
    const info = await stat(r.absolute).catch((error: unknown) => Promise.reject(fromFsError(error, r.requested)));
    return { path: r.requested, type: info.isDirectory() ? "directory" : "file", size: info.size, mtimeMs: info.mtimeMs };
  }

  /** One folder's entries (the tree loads lazily): folders first, then by name. */
  async list(dir = ""): Promise<FileEntry[]> {
    const r = await this.resolve(dir);
    const dirents = await readdir(r.absolute, { withFileTypes: true }).catch((error: unknown) =>
      Promise.reject(errnoCode(error) === "ENOTDIR" ? new WorkspaceError("NOT_A_DIRECTORY", `${shown(r.requested)} is a file, not a folder. Read it instead.`) : fromFsError(error, r.requested)),
    );
    const isIgnored = await this.ignoreRules.forDirectory(r.requested);
    const entries = await Promise.all(
      dirents.map(async (dirent): Promise<FileEntry | null> => {
        // A write cut off by a crash (kill -9) strands its temp file; it is no one's file. It is
        // hidden, not deleted: on a disk shared by instances it may be another's write in flight.
        if (isTempFileName(dirent.name)) return null;
        const info = await lstat(path.join(r.absolute, dirent.name)).catch(() => null);
        if (!info) return null; // removed between readdir and lstat
        const type: FileType = info.isSymbolicLink() ? "symlink" : info.isDirectory() ? "directory" : "file";
        return {
          name: dirent.name,
          path: r.requested === "" ? dirent.name : `${r.requested}/${dirent.name}`,
          type,
          size: info.size,
          mtimeMs: info.mtimeMs,
          ignored: isIgnored(dirent.name, type === "directory"),
        };
      }),
    );
    return entries
      .filter((entry): entry is FileEntry => entry !== null)
      .sort((a, b) => Number(b.type === "directory") - Number(a.type === "directory") || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** The raw bytes of a file, for tools that need them; refuses folders and files over `maxBytes`. */
  async readBytes(input: string, maxBytes = MAX_FILE_BYTES): Promise<Buffer> {
    const r = await this.resolve(input);
    await this.fileSize(r, maxBytes);
    return readFile(r.absolute).catch((error: unknown) => Promise.reject(fromFsError(error, r.requested)));
  }

  async read(input: string): Promise<ReadResult> {
    const r = await this.resolve(input);
    await this.fileSize(r, MAX_FILE_BYTES);
    const bytes = await readFile(r.absolute).catch((error: unknown) => Promise.reject(fromFsError(error, r.requested)));
    const version = versionOf(bytes);
    const decoded = decode(bytes, path.basename(r.absolute));
    if (decoded.kind === "binary") {
      return { kind: "binary", path: r.requested, size: bytes.length, version, ...(decoded.mime ? { mime: decoded.mime } : {}) };
    }
    const { content, encoding, bom, eol, lossy } = decoded;
    const notice =
      bytes.length > READ_ONLY_BYTES
        ? `This file is ${megabytes(bytes.length)}, over the ${megabytes(READ_ONLY_BYTES)} editing limit, so it is read-only here. Edit it from the terminal.`
        : lossy
          ? "This file contains bytes that are not valid UTF-8, so it is read-only here: saving would replace them. Edit it from the terminal."
          : undefined;
    return { kind: "text", path: r.requested, content, encoding, bom, eol, version, size: bytes.length, readOnly: notice !== undefined, ...(notice ? { notice } : {}) };
  }

  /**
   * Saves text atomically, keeping the file's encoding, BOM and line endings (see `encode` for the
   * line-ending rule). Returns the new version.
   */
  write(input: string, content: string, options: WriteOptions = {}): Promise<{ version: string }> {
    return this.mutate(() => this.writeText(input, content, options, false));
  }

  /** Creates a file; EXISTS when something is already at `input`. */
  create(input: string, content = "", options: { createParents?: boolean } = {}): Promise<{ version: string }> {
    return this.mutate(() => this.writeText(input, content, { ...options, expectedVersion: null }, true));
  }

  /** Creates a folder and any missing parents; EXISTS when something is already there. */
  mkdir(input: string): Promise<void> {
    return this.mutate(async () => {
      const r = await this.resolve(input);
      if (r.requested === "" || (await lstat(r.entry).catch(() => null))) {
        throw new WorkspaceError("EXISTS", `${shown(r.requested)} already exists. Choose another name.`);
      }
      await mkdir(r.absolute, { recursive: true }).catch((error: unknown) => Promise.reject(fromFsError(error, r.requested)));
    });
  }

  /** Renames or moves a file or folder (a symlink is moved, not what it points to). Never overwrites. */
  rename(from: string, to: string, options: { createParents?: boolean } = {}): Promise<void> {
    return this.mutate(async () => {
      const source = await this.resolve(from);
      const target = await this.resolve(to);
      if (source.entry === this.root || target.entry === this.root) {
        throw new WorkspaceError("INVALID_PATH", "The workspace root itself cannot be renamed or replaced. Name a file or folder inside it.");
      }
      const sourceInfo = await lstat(source.entry).catch((error: unknown) => Promise.reject(fromFsError(error, source.requested)));
      const targetInfo = await lstat(target.entry).catch(() => null);
      const sameEntry = targetInfo !== null && targetInfo.ino === sourceInfo.ino && targetInfo.dev === sourceInfo.dev;
      if (targetInfo && !sameEntry) {
        throw new WorkspaceError("EXISTS", `${shown(target.requested)} already exists. Delete it first or choose another name.`);
      }
      if (sourceInfo.isDirectory() && target.entry !== source.entry && isInside(source.entry, target.entry)) {
        throw new WorkspaceError("INVALID_PATH", `Cannot move the folder ${shown(source.requested)} into itself ('${target.requested}').`);
      }
      await this.ensureParent(target, options.createParents ?? false);
      await rename(source.entry, target.entry).catch((error: unknown) => Promise.reject(fromFsError(error, target.requested)));
    });
  }

  /** Deletes a file, a symlink (not its target) or a folder with everything in it. */
  delete(input: string): Promise<void> {
    return this.mutate(async () => {
      const r = await this.resolve(input);
      if (r.entry === this.root) {
        throw new WorkspaceError("INVALID_PATH", "The workspace root itself cannot be deleted. Name a file or folder inside it.");
      }
      await lstat(r.entry).catch((error: unknown) => Promise.reject(fromFsError(error, r.requested)));
      await rm(r.entry, { recursive: true }).catch((error: unknown) => Promise.reject(fromFsError(error, r.requested)));
    });
  }

  /**
   * Runs `task` in this workspace's mutation queue, so that a multi-file change (see transaction.ts)
   * checks versions and writes without a save landing in between.
   */
  exclusive<T>(task: () => Promise<T>): Promise<T> {
    return this.mutate(task);
  }

  /** Mutations run one at a time per workspace, so a version check and its write cannot interleave. */
  private mutate<T>(task: () => Promise<T>): Promise<T> {
    const run = this.mutations.then(task, task);
    this.mutations = run.catch(() => undefined);
    return run;
  }

  private async fileSize(r: ResolvedPath, maxBytes: number): Promise<number> {
    const info = await stat(r.absolute).catch((error: unknown) => Promise.reject(fromFsError(error, r.requested)));
    if (info.isDirectory()) throw new WorkspaceError("IS_DIRECTORY", `${shown(r.requested)} is a folder, not a file. List it instead.`);
    if (info.size > maxBytes) throw tooLarge(r.requested, info.size);
    return info.size;
  }

  private async ensureParent(r: ResolvedPath, createParents: boolean): Promise<void> {
    const parent = path.dirname(r.absolute);
    const info = await stat(parent).catch(() => null);
    if (info?.isDirectory()) return;
    const parentPath = toPosix(path.relative(this.root, parent));
    if (info) throw new WorkspaceError("NOT_A_DIRECTORY", `${shown(parentPath)} is a file, so nothing can be put inside it.`);
    if (!createParents) {
      throw new WorkspaceError("NOT_FOUND", `The folder ${shown(parentPath)} does not exist. Create it first, or ask for parent folders to be created.`);
    }
    await mkdir(parent, { recursive: true }).catch((error: unknown) => Promise.reject(fromFsError(error, parentPath)));
  }

  private async writeText(input: string, content: string, options: WriteOptions, creating: boolean): Promise<{ version: string }> {
    const r = await this.resolve(input);
    if (r.entry === this.root) throw new WorkspaceError("IS_DIRECTORY", "The workspace root is a folder, not a file. Name a file inside it.");
    const info = await stat(r.absolute).catch((error: unknown) =>
      errnoCode(error) === "ENOENT" ? null : Promise.reject(fromFsError(error, r.requested)),
    );
    if (info?.isDirectory()) {
      throw creating
        ? new WorkspaceError("EXISTS", `${shown(r.requested)} already exists as a folder. Choose another name.`)
        : new WorkspaceError("IS_DIRECTORY", `${shown(r.requested)} is a folder, not a file. Name a file inside it.`);
    }
    if (info && info.size > MAX_FILE_BYTES) throw tooLarge(r.requested, info.size);
    const current = info ? await readFile(r.absolute) : null;
    const currentVersion = current ? versionOf(current) : null;
    if (options.expectedVersion !== undefined && options.expectedVersion !== currentVersion) {
      if (creating) throw new WorkspaceError("EXISTS", `${shown(r.requested)} already exists. Open it, or choose another name.`);
      throw conflict(r.requested, currentVersion);
    }
    const decoded = current ? decode(current, path.basename(r.absolute)) : null;
    const kept = decoded?.kind === "text" ? { encoding: decoded.encoding, bom: decoded.bom, eol: decoded.eol } : DEFAULT_FORMAT;
    const bytes = encode(content, { ...kept, ...options.format });
    if (bytes.length > MAX_FILE_BYTES) throw tooLarge(r.requested, bytes.length);
    await this.ensureParent(r, options.createParents ?? false);
    try {
      await atomicWrite(r.absolute, bytes, { mode: info ? info.mode & 0o7777 : undefined, exclusive: current === null });
    } catch (error) {
      if (errnoCode(error) !== "EEXIST") throw fromFsError(error, r.requested);
      if (creating) throw new WorkspaceError("EXISTS", `${shown(r.requested)} already exists. Open it, or choose another name.`);
      throw conflict(r.requested, versionOf(await readFile(r.absolute)));
    }
    return { version: versionOf(bytes) };
  }
}

function conflict(p: string, currentVersion: string | null): WorkspaceError {
  const what =
    currentVersion === null
      ? `${shown(p)} was deleted since you read it. Write it with expectedVersion null to create it again.`
      : `${shown(p)} changed on disk since you read it (another person or the agent saved it). Read it again, reapply your change, and write with the new version.`;
  return new WorkspaceError("CONFLICT", `${what} ${conflictVersionTag(currentVersion)}`, { currentVersion });
}
