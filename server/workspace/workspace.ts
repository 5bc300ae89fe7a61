import { createHash } from "node:crypto";
import type { Stats } from "node:fs";
import path from "node:path";
import type { FileEntry, FileType, ReadResult } from "@/lib/fs-schemas";
import { conflictVersionTag } from "@/lib/fs-schemas";
import { workspacePathInside } from "@/lib/workspace-mount";
import { atomicWriteAt, isTempFileName } from "./atomic-write";
import {
  closeQuietly,
  lstatAt,
  lstatAtIfExists,
  notAFile,
  openFolder,
  openParent,
  readDirBeneath,
  readRegular,
  readRegularAt,
  realRoot,
  resolveEntry,
  statAtSync,
  statBeneath,
  whereIs,
  withFd,
  type ParentEntry,
} from "./beneath";
import { makeExecutableBeneath, mkdirAt, mkdirBeneath, removeTreeAt, renameAt } from "./beneath-entries";
import { WorkspaceError, errnoCode, fromFsError } from "./errors";
import { IgnoreRules } from "./ignore-rules";
import { isInside, resolveInside, type ResolvedPath } from "./paths";
import { DEFAULT_FORMAT, decode, encode, type TextFormat } from "./text-codec";
import { ensureRoom, spent } from "./write-budget";

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

/** The parent folder of a root-relative path ("" for the root's children). */
function parentOf(rel: string): string {
  const parent = path.posix.dirname(rel);
  return parent === "." ? "" : parent;
}

/**
 * A project's directory on disk: the only code that reads or changes it. Every path is checked
 * (resolveInside: the messages, the path a client sees) and then opened beneath the root
 * (beneath.ts), never used again as a string, so a link swapped in meanwhile cannot lead out.
 */
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
    if (!path.isAbsolute(root))
      throw new WorkspaceError("INVALID_PATH", `Workspace root '${root}' must be an absolute path.`);
    const { real, isDirectory } = await realRoot(root).catch((error: unknown) =>
      Promise.reject(fromFsError(error, root)),
    );
    if (!isDirectory) throw new WorkspaceError("NOT_A_DIRECTORY", `Workspace root '${root}' is not a folder.`);
    // Also the path sandboxed processes see it at, which their output and the agent name it by.
    const aliases = [path.resolve(root), workspacePathInside(true, real)].filter((alias) => alias !== real);
    return new Workspace(real, [...new Set(aliases)]);
  }

  resolve(input: string): Promise<ResolvedPath> {
    return resolveInside(this.root, this.aliases, input);
  }

  /** A file's or folder's status (links inside followed); NOT_A_FILE for a FIFO, socket or device. */
  async stat(input: string): Promise<FileStat> {
    const r = await this.resolve(input);
    const info = await statBeneath(this.root, r.requested).catch((error: unknown) =>
      Promise.reject(fromFsError(error, r.requested)),
    );
    if (!info.isDirectory() && !info.isFile()) throw notAFile(shown(r.requested), info);
    return {
      path: r.requested,
      type: info.isDirectory() ? "directory" : "file",
      size: info.size,
      mtimeMs: info.mtimeMs,
    };
  }

  /**
   * Makes a regular file executable, as git records it (a browser's upload carries no modes);
   * anything but a regular file reached without a link is left alone: false.
   */
  makeExecutable(input: string): Promise<boolean> {
    return this.mutate(async () => makeExecutableBeneath(this.root, (await this.resolve(input)).requested));
  }

  /** One folder's entries (the tree loads lazily): folders first, then by name. */
  async list(dir = ""): Promise<FileEntry[]> {
    return (await this.listWithModes(dir)).map(({ mode: _mode, ...entry }) => entry);
  }

  /** `list` with each entry's permission bits (lstat: a link's own), for the agent's ls. */
  async listWithModes(dir = ""): Promise<(FileEntry & { mode: number })[]> {
    const r = await this.resolve(dir);
    const { dirFd, names } = await readDirBeneath(this.root, r.requested).catch((error: unknown) =>
      Promise.reject(
        errnoCode(error) === "ENOTDIR"
          ? new WorkspaceError("NOT_A_DIRECTORY", `${shown(r.requested)} is a file, not a folder. Read it instead.`)
          : fromFsError(error, r.requested),
      ),
    );
    const entries = await withFd(dirFd, async () => {
      const isIgnored = await this.ignoreRules.forDirectory(r.requested);
      return Promise.all(
        names.map(async (name): Promise<(FileEntry & { mode: number }) | null> => {
          // A write cut off by a crash (kill -9) strands its temp file; it is no one's file. It is
          // hidden, not deleted: on a disk shared by instances it may be another's write in flight.
          if (isTempFileName(name)) return null;
          const info = await lstatAtIfExists(dirFd, name).catch(() => null);
          if (!info) return null; // removed between readdir and lstat
          const type: FileType = info.isSymbolicLink() ? "symlink" : info.isDirectory() ? "directory" : "file";
          return {
            name,
            path: r.requested === "" ? name : `${r.requested}/${name}`,
            type,
            size: info.size,
            mtimeMs: info.mtimeMs,
            ignored: isIgnored(name, type === "directory"),
            mode: info.mode,
          };
        }),
      );
    });
    return entries
      .filter((entry) => entry !== null)
      .sort(
        (a, b) =>
          Number(b.type === "directory") - Number(a.type === "directory") ||
          (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
      );
  }

  /**
   * Runs `task` in the folder `input` opened beneath the root: `cwd` is `/proc/<server pid>/fd/<n>`,
   * bound to that folder while `task` runs, for a child process (ripgrep), so a folder swapped for
   * a link meanwhile cannot move the child elsewhere; `mtimeOf` stats a path in that folder beneath it.
   */
  async inFolder<T>(
    input: string,
    task: (folder: { cwd: string; mtimeOf(rel: string): number | null }) => Promise<T>,
  ): Promise<T> {
    const r = await this.resolve(input);
    let fd: number;
    try {
      fd = openFolder(this.root, r.requested);
    } catch (error) {
      throw fromFsError(error, r.requested);
    }
    return withFd(fd, () =>
      task({ cwd: `/proc/${process.pid}/fd/${fd}`, mtimeOf: (rel) => statAtSync(fd, rel)?.mtimeMs ?? null }),
    );
  }

  /**
   * The raw bytes of a file, for tools that need them; refuses folders, anything that is not a
   * regular file (a FIFO would block the server) and files over `maxBytes`.
   */
  async readBytes(input: string, maxBytes = MAX_FILE_BYTES): Promise<Buffer> {
    const r = await this.resolve(input);
    return this.readContained(r, maxBytes);
  }

  /**
   * A file's text (or that it is binary). `only`, when given, admits the file by where it really is
   * once opened (root-relative, links resolved): a reader allowed some files only (a view link)
   * is judged by the file it would read, never by a path a link can replace in between.
   */
  async read(input: string, only?: { admits: (realPath: string) => boolean; refusal: string }): Promise<ReadResult> {
    const r = await this.resolve(input);
    const admit = only
      ? (real: string | null) => {
          if (real === null || !only.admits(real)) throw new WorkspaceError("NOT_FOUND", only.refusal);
        }
      : undefined;
    const bytes = await this.readContained(r, MAX_FILE_BYTES, admit);
    const version = versionOf(bytes);
    const decoded = decode(bytes, path.posix.basename(r.path));
    if (decoded.kind === "binary") {
      return {
        kind: "binary",
        path: r.requested,
        size: bytes.length,
        version,
        ...(decoded.mime ? { mime: decoded.mime } : {}),
      };
    }
    const { content, encoding, bom, eol, lossy } = decoded;
    const notice =
      bytes.length > READ_ONLY_BYTES
        ? `This file is ${megabytes(bytes.length)}, over the ${megabytes(READ_ONLY_BYTES)} editing limit, so it is read-only here. Edit it from the terminal.`
        : lossy
          ? "This file contains bytes that are not valid UTF-8, so it is read-only here: saving would replace them. Edit it from the terminal."
          : undefined;
    return {
      kind: "text",
      path: r.requested,
      content,
      encoding,
      bom,
      eol,
      version,
      size: bytes.length,
      readOnly: notice !== undefined,
      ...(notice ? { notice } : {}),
    };
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
      const exists = () => new WorkspaceError("EXISTS", `${shown(r.requested)} already exists. Choose another name.`);
      if (r.requested === "") throw exists();
      await ensureRoom(this, 1, shown(r.requested));
      await mkdirBeneath(this.root, parentOf(r.requested)).catch((error: unknown) =>
        Promise.reject(fromFsError(error, r.requested)),
      );
      await this.atParent(r, async ({ dirFd, name }) => {
        if (await lstatAtIfExists(dirFd, name)) throw exists();
        await mkdirAt(dirFd, name).catch((error: unknown) =>
          Promise.reject(errnoCode(error) === "EEXIST" ? exists() : fromFsError(error, r.requested)),
        );
      });
    });
  }

  /** Renames or moves a file or folder (a symlink is moved, not what it points to). Never overwrites. */
  rename(from: string, to: string, options: { createParents?: boolean } = {}): Promise<void> {
    return this.mutate(async () => {
      const source = await this.resolve(from);
      const target = await this.resolve(to);
      if (source.requested === "" || target.requested === "") {
        throw new WorkspaceError(
          "INVALID_PATH",
          "The workspace root itself cannot be renamed or replaced. Name a file or folder inside it.",
        );
      }
      await this.atParent(source, async (src) => {
        const sourceInfo = await lstatAt(src.dirFd, src.name).catch((error: unknown) =>
          Promise.reject(fromFsError(error, source.requested)),
        );
        const sourceReal = `${(await whereIs(this.root, src.dirFd)) ?? ""}/${src.name}`.replace(/^\//, "");
        if (sourceInfo.isDirectory() && target.path !== sourceReal && isInside(sourceReal, target.path)) {
          throw new WorkspaceError(
            "INVALID_PATH",
            `Cannot move the folder ${shown(source.requested)} into itself ('${target.requested}').`,
          );
        }
        await this.ensureParent(target, options.createParents ?? false);
        await this.atParent(target, async (dst) => {
          const targetInfo = await lstatAtIfExists(dst.dirFd, dst.name);
          const sameEntry =
            targetInfo !== null && targetInfo.ino === sourceInfo.ino && targetInfo.dev === sourceInfo.dev;
          if (targetInfo && !sameEntry) {
            throw new WorkspaceError(
              "EXISTS",
              `${shown(target.requested)} already exists. Delete it first or choose another name.`,
            );
          }
          await renameAt(src.dirFd, src.name, dst.dirFd, dst.name).catch((error: unknown) =>
            Promise.reject(
              errnoCode(error) === "EINVAL"
                ? new WorkspaceError(
                    "INVALID_PATH",
                    `Cannot move the folder ${shown(source.requested)} into itself ('${target.requested}').`,
                  )
                : fromFsError(error, target.requested),
            ),
          );
        });
      });
    });
  }

  /** Deletes a file, a symlink (not its target) or a folder with everything in it. */
  delete(input: string): Promise<void> {
    return this.mutate(async () => {
      const r = await this.resolve(input);
      if (r.requested === "") {
        throw new WorkspaceError(
          "INVALID_PATH",
          "The workspace root itself cannot be deleted. Name a file or folder inside it.",
        );
      }
      await this.atParent(r, async ({ dirFd, name }) => {
        await lstatAt(dirFd, name).catch((error: unknown) => Promise.reject(fromFsError(error, r.requested)));
        await removeTreeAt(dirFd, name).catch((error: unknown) => Promise.reject(fromFsError(error, r.requested)));
      });
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

  /** Runs `task` with the parent folder of `r` opened beneath the root (links inside followed) and the entry's name. */
  private async atParent<T>(r: ResolvedPath, task: (entry: ParentEntry) => Promise<T>): Promise<T> {
    let entry: ParentEntry;
    try {
      entry = openParent(this.root, r.requested);
    } catch (error) {
      throw fromFsError(error, r.requested);
    }
    return withFd(entry.dirFd, () => task(entry));
  }

  /** The bytes of the regular file at `r`, opened beneath the root: never a folder, FIFO, socket or device. */
  private async readContained(
    r: ResolvedPath,
    maxBytes: number,
    admit?: (real: string | null) => void,
  ): Promise<Buffer> {
    const { bytes, info } = await readRegular(this.root, r.requested, shown(r.requested), maxBytes, admit).catch(
      (error: unknown) => Promise.reject(fromFsError(error, r.requested)),
    );
    if (bytes === null) throw tooLarge(r.requested, Math.max(info.size, maxBytes + 1));
    return bytes;
  }

  private async ensureParent(r: ResolvedPath, createParents: boolean): Promise<void> {
    const parentPath = parentOf(r.requested);
    const info = await statBeneath(this.root, parentPath).catch(() => null);
    if (info?.isDirectory()) return;
    if (info)
      throw new WorkspaceError("NOT_A_DIRECTORY", `${shown(parentPath)} is a file, so nothing can be put inside it.`);
    if (!createParents) {
      throw new WorkspaceError(
        "NOT_FOUND",
        `The folder ${shown(parentPath)} does not exist. Create it first, or ask for parent folders to be created.`,
      );
    }
    await mkdirBeneath(this.root, parentPath).catch((error: unknown) => Promise.reject(fromFsError(error, parentPath)));
  }

  /**
   * Where a write to `r` lands: a link at the last component is followed, as an editor saving
   * through it would, each hop re-opened beneath the root (beneath.ts resolveEntry); null while
   * its folder does not exist.
   */
  private async writeTarget(r: ResolvedPath): Promise<(ParentEntry & { info: Stats | null }) | null> {
    try {
      return await resolveEntry(this.root, r.requested);
    } catch (error) {
      const code = errnoCode(error);
      if (code === "ENOENT") return null;
      throw fromFsError(error, r.requested);
    }
  }

  private async writeText(
    input: string,
    content: string,
    options: WriteOptions,
    creating: boolean,
  ): Promise<{ version: string }> {
    const r = await this.resolve(input);
    if (r.requested === "")
      throw new WorkspaceError("IS_DIRECTORY", "The workspace root is a folder, not a file. Name a file inside it.");
    let target = await this.writeTarget(r);
    try {
      const info = target?.info ?? null;
      if (info?.isDirectory()) {
        throw creating
          ? new WorkspaceError("EXISTS", `${shown(r.requested)} already exists as a folder. Choose another name.`)
          : new WorkspaceError("IS_DIRECTORY", `${shown(r.requested)} is a folder, not a file. Name a file inside it.`);
      }
      if (info && !info.isFile()) throw notAFile(shown(r.requested), info);
      if (info && info.size > MAX_FILE_BYTES) throw tooLarge(r.requested, info.size);
      const current = target && info ? await this.readEntry(target, r.requested) : null;
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
      await ensureRoom(this, current === null ? Math.max(growth, 1) : growth, shown(r.requested));
      if (!target) {
        await this.ensureParent(r, options.createParents ?? false);
        target = await this.writeTarget(r);
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
        throw conflict(r.requested, versionOf(await this.readEntry(target, r.requested)));
      }
      spent(this, growth);
      return { version: versionOf(bytes) };
    } finally {
      if (target) closeQuietly(target.dirFd);
    }
  }

  /** The current bytes of a write target (a regular file, at most MAX_FILE_BYTES). */
  private async readEntry(target: ParentEntry, requested: string): Promise<Buffer> {
    const { bytes, info } = await readRegularAt(target.dirFd, target.name, shown(requested), MAX_FILE_BYTES).catch(
      (error: unknown) => Promise.reject(fromFsError(error, requested)),
    );
    if (bytes === null) throw tooLarge(requested, info.size);
    return bytes;
  }
}

function conflict(p: string, currentVersion: string | null): WorkspaceError {
  const what =
    currentVersion === null
      ? `${shown(p)} was deleted since you read it. Write it with expectedVersion null to create it again.`
      : `${shown(p)} changed on disk since you read it (another person or the agent saved it). Read it again, reapply your change, and write with the new version.`;
  return new WorkspaceError("CONFLICT", `${what} ${conflictVersionTag(currentVersion)}`, { currentVersion });
}
