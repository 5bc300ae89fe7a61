import path from "node:path";
import type { FileEntry, FileType, ReadResult } from "@/lib/fs-schemas";
import { workspacePathInside } from "@/lib/workspace-mount";
import {
  lstatAt,
  lstatAtIfExists,
  openFolder,
  openParent,
  realRoot,
  statAtSync,
  statBeneath,
  whereIs,
  withFd,
  type ParentEntry,
} from "./beneath";
import { notAFile, readRegular } from "./beneath-files";
import { makeExecutableBeneath, mkdirAt, mkdirBeneath, removeTreeAt, renameAt } from "./beneath-entries";
import { WorkspaceError, errnoCode, fromFsError } from "./errors";
import { MAX_FILE_BYTES, shown, tooLarge } from "./file-limits";
import { listFolder } from "./folder-listing";
import { IgnoreRules } from "./ignore-rules";
import { isInside, resolveInside, type ResolvedPath } from "./paths";
import { ensureParent, parentOf, saveText, type WriteOptions } from "./save-text";
import { readResultOf } from "./text-read";
import { ensureRoom } from "./write-budget";

export interface FileStat {
  path: string;
  type: FileType;
  size: number;
  mtimeMs: number;
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
    return listFolder(this.root, this.ignoreRules, r.requested);
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
   * is judged by the file it would read, never by a path a link can replace in between. A file
   * over `maxBytes` is refused (TOO_LARGE) without being read.
   */
  async read(
    input: string,
    only?: { admits: (realPath: string) => boolean; refusal: string },
    maxBytes = MAX_FILE_BYTES,
  ): Promise<ReadResult> {
    const r = await this.resolve(input);
    const admit = only
      ? (real: string | null) => {
          if (real === null || !only.admits(real)) throw new WorkspaceError("NOT_FOUND", only.refusal);
        }
      : undefined;
    return readResultOf(await this.readContained(r, maxBytes, admit), r.requested, r.path);
  }

  /**
   * Saves text atomically, keeping the file's encoding, BOM and line endings (see `encode` for the
   * line-ending rule). Returns the new version.
   */
  write(input: string, content: string, options: WriteOptions = {}): Promise<{ version: string }> {
    return this.mutate(async () => saveText(this.saveInto, await this.resolve(input), content, options, false));
  }

  /** Creates a file; EXISTS when something is already at `input`. */
  create(input: string, content = "", options: { createParents?: boolean } = {}): Promise<{ version: string }> {
    return this.mutate(async () =>
      saveText(this.saveInto, await this.resolve(input), content, { ...options, expectedVersion: null }, true),
    );
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
        await ensureParent(this.root, target, options.createParents ?? false);
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
    if (bytes === null) throw tooLarge(r.requested, Math.max(info.size, maxBytes + 1), maxBytes);
    return bytes;
  }

  private get saveInto() {
    return { root: this.root, budgetKey: this };
  }
}
