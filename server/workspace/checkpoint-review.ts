import { readlink } from "node:fs/promises";
import path from "node:path";
import { fdPath, lstatAtIfExists, openParent, withFd } from "./beneath";
import { openRegularAt, readFdBounded } from "./beneath-files";
import { deleteCheckpointFile, writeCheckpointFile } from "./checkpoint-apply";
import { CheckpointError } from "./checkpoint-errors";
import type { CheckpointGit } from "./checkpoint-git";
import { applyHunk, computeHunks, isText, revertHunk, type Hunk } from "./checkpoint-hunks";
import { EXECUTABLE_MODE, SYMLINK_MODE } from "./checkpoint-tree";
import { WorkspaceError, errnoCode, fromFsError } from "./errors";
import { decode } from "./text-codec";
import { versionOf } from "./file-limits";
import type { Workspace } from "./workspace";

/** A hunk of a file's diff between checkpoint `baseId` and the workspace. */
export interface HunkTarget {
  baseId: string;
  path: string;
  hunkIndex: number;
  /** The file's path in the checkpoint when it was renamed since. */
  oldPath?: string;
  /** The version from `hunks()`; a different file on disk is STALE (hunk indexes may have moved). */
  expectedVersion?: string | null;
}

export interface FileHunks {
  path: string;
  /** No hunks for binary files or symlinks: accept or reject them whole. */
  binary: boolean;
  /** Version (sha-256) of the workspace file now; null when it does not exist. */
  version: string | null;
  hunks: Hunk[];
}

export interface HunkEdit {
  /** The file's new version; null when rejecting removed it (it did not exist in the checkpoint). */
  version: string | null;
  /** Its new text; null when removed. */
  content: string | null;
  /** What is left to review in it. */
  hunks: Hunk[];
}

interface StoredFile {
  mode: string;
  bytes: Buffer;
}

interface FileSide {
  bytes: Buffer | null;
  mode: string | null;
}

const LS_TREE_ARGS_MAX = 500;
const NO_FILE: FileSide = { bytes: null, mode: null };

/**
 * What the Changes view does to single files: hunks between a checkpoint and the workspace,
 * rejecting (writing the checkpoint's lines back) and accepting (moving the review base forward,
 * as a commit of its own under refs/tandem/reviews, so the workspace is not touched).
 */
export class ChangeReview {
  static readonly REFS = "refs/tandem/reviews";

  constructor(
    private readonly git: CheckpointGit,
    private readonly workspace: Workspace,
  ) {}

  async fileAt(commit: string, filePath: string): Promise<Buffer | null> {
    return (await this.entriesAt(commit, [filePath])).get(filePath)?.bytes ?? null;
  }

  /** Mode and bytes of files in a commit; paths that are not files there are left out. */
  async entriesAt(commit: string, paths: readonly string[]): Promise<Map<string, StoredFile>> {
    const found = new Map<string, StoredFile>();
    if (paths.length === 0) return found;
    const wanted = new Set(paths);
    // -l: each blob's size too, which readObjects checks before it reads.
    const args = ["ls-tree", "-r", "-z", "-l", "--full-tree", commit];
    const { stdout } = await this.git.run(paths.length > LS_TREE_ARGS_MAX ? args : [...args, "--", ...paths]);
    const listed: { path: string; mode: string; sha: string; size: number }[] = [];
    for (const record of stdout.toString("utf8").split("\0")) {
      const match = /^(\d+) blob ([0-9a-f]{40}) +(\d+)\t(.*)$/s.exec(record);
      if (match && wanted.has(match[4]!))
        listed.push({ mode: match[1]!, sha: match[2]!, size: Number(match[3]), path: match[4]! });
    }
    const contents = await this.git.readObjects(
      listed.map((entry) => entry.sha),
      { labels: listed.map((entry) => entry.path), sizes: listed.map((entry) => entry.size) },
    );
    listed.forEach((entry, i) => found.set(entry.path, { mode: entry.mode, bytes: contents[i]! }));
    return found;
  }

  async restoreFile(commit: string, filePath: string): Promise<{ version: string | null }> {
    const stored = (await this.entriesAt(commit, [filePath])).get(filePath);
    if (!stored) {
      await deleteCheckpointFile(this.workspace, filePath);
      return { version: null };
    }
    await writeCheckpointFile(this.workspace, filePath, stored.bytes, stored.mode);
    return { version: versionOf(stored.bytes) };
  }

  async hunks(target: { baseId: string; path: string; oldPath?: string }): Promise<FileHunks> {
    const { base, current } = await this.sides(target);
    const version = current.bytes ? versionOf(current.bytes) : null;
    if (!reviewable(base) || !reviewable(current)) return { path: target.path, binary: true, version, hunks: [] };
    return {
      path: target.path,
      binary: false,
      version,
      hunks: computeHunks(base.bytes ?? Buffer.alloc(0), current.bytes ?? Buffer.alloc(0)),
    };
  }

  async rejectHunk(target: HunkTarget): Promise<HunkEdit> {
    const { base, current } = await this.checkedSides(target);
    const next = revertHunk(base.bytes ?? Buffer.alloc(0), current.bytes ?? Buffer.alloc(0), target.hunkIndex);
    if (base.bytes === null && next.length === 0) {
      // Rejecting the whole of a file the agent created removes it.
      await deleteCheckpointFile(this.workspace, target.path);
      return { version: null, content: null, hunks: [] };
    }
    await writeCheckpointFile(this.workspace, target.path, next, current.mode === null ? base.mode : null);
    const decoded = decode(next, path.posix.basename(target.path));
    return {
      version: versionOf(next),
      content: decoded.kind === "text" ? decoded.content : null,
      hunks: computeHunks(base.bytes ?? Buffer.alloc(0), next),
    };
  }

  async acceptHunk(target: HunkTarget, baseTree: string): Promise<{ baseId: string; tree: string }> {
    const { base, current } = await this.checkedSides(target);
    const accepted = applyHunk(base.bytes ?? Buffer.alloc(0), current.bytes ?? Buffer.alloc(0), target.hunkIndex);
    const mode = current.mode ?? base.mode ?? "100644";
    return this.reviseBase(target, baseTree, { mode, bytes: accepted }, `Accepted a change in ${target.path}`);
  }

  async acceptFile(
    target: { baseId: string; path: string; oldPath?: string },
    baseTree: string,
  ): Promise<{ baseId: string; tree: string }> {
    const current = await this.currentSide(target.path);
    const file = current.bytes === null ? null : { mode: current.mode!, bytes: current.bytes };
    return this.reviseBase(target, baseTree, file, `Accepted ${target.path}`);
  }

  /** A commit off `baseId` whose tree differs from it in `target.path` only (and drops `oldPath`). */
  private async reviseBase(
    target: { baseId: string; path: string; oldPath?: string },
    baseTree: string,
    file: StoredFile | null,
    message: string,
  ): Promise<{ baseId: string; tree: string }> {
    const indexFile = path.join(this.git.storeDir, "review-index");
    await this.git.run(["read-tree", baseTree], { indexFile });
    const zero = "0".repeat(40);
    const lines = [
      ...(target.oldPath && target.oldPath !== target.path ? [`0 ${zero}\t${target.oldPath}`] : []),
      file
        ? `${file.mode} ${await this.git.text(["hash-object", "-w", "--no-filters", "--stdin"], { input: file.bytes })}\t${target.path}`
        : `0 ${zero}\t${target.path}`,
    ];
    await this.git.run(["update-index", "-z", "--index-info"], {
      indexFile,
      input: lines.map((line) => `${line}\0`).join(""),
    });
    const tree = await this.git.text(["write-tree"], { indexFile });
    const baseId = await this.git.text(["commit-tree", tree, "-p", target.baseId], { input: `${message}\n` });
    await this.git.run(["update-ref", `${ChangeReview.REFS}/${baseId}`, baseId]);
    return { baseId, tree };
  }

  private async checkedSides(target: HunkTarget): Promise<{ base: FileSide; current: FileSide }> {
    const sides = await this.sides(target);
    const version = sides.current.bytes ? versionOf(sides.current.bytes) : null;
    if (target.expectedVersion !== undefined && target.expectedVersion !== version) {
      throw new CheckpointError(
        "STALE",
        `'${target.path}' changed since its hunks were listed. List them again and pick the hunk anew.`,
      );
    }
    if (!reviewable(sides.base) || !reviewable(sides.current)) {
      throw new CheckpointError(
        "NOT_TEXT",
        `'${target.path}' is binary or a symbolic link, so it has no hunks. Accept or reject the whole file.`,
      );
    }
    const count = computeHunks(sides.base.bytes ?? Buffer.alloc(0), sides.current.bytes ?? Buffer.alloc(0)).length;
    if (!Number.isInteger(target.hunkIndex) || target.hunkIndex < 0 || target.hunkIndex >= count) {
      throw new CheckpointError(
        "UNKNOWN_HUNK",
        `'${target.path}' has ${count} hunk(s); there is no hunk ${target.hunkIndex}. List them again.`,
      );
    }
    return sides;
  }

  private async sides(target: {
    baseId: string;
    path: string;
    oldPath?: string;
  }): Promise<{ base: FileSide; current: FileSide }> {
    const basePath = target.oldPath ?? target.path;
    const stored = (await this.entriesAt(target.baseId, [basePath])).get(basePath);
    return { base: stored ?? NO_FILE, current: await this.currentSide(target.path) };
  }

  /**
   * The workspace file as git would record it, opened beneath the root: a link is read as a link,
   * a regular file through the descriptor that was checked, anything else is no file.
   */
  private async currentSide(filePath: string, attempt = 0): Promise<FileSide> {
    const rel = (await this.workspace.resolve(filePath)).requested;
    let parent;
    try {
      parent = openParent(this.workspace.root, rel);
    } catch (error) {
      if (errnoCode(error) === "ENOENT" || errnoCode(error) === "ENOTDIR") return NO_FILE;
      throw fromFsError(error, rel);
    }
    return withFd(parent.dirFd, async () => {
      const info = await lstatAtIfExists(parent.dirFd, parent.name);
      if (info?.isSymbolicLink())
        return { bytes: Buffer.from(await readlink(fdPath(parent.dirFd, parent.name))), mode: SYMLINK_MODE };
      if (!info?.isFile()) return NO_FILE;
      // Not followed if it became a link meanwhile (ELOOP): then it is read again as one.
      const { fd, info: opened } = await openRegularAt(parent.dirFd, parent.name, `'${rel}'`, {
        followLast: false,
      }).catch((error: unknown) =>
        errnoCode(error) === "ELOOP" || errnoCode(error) === "ENOENT"
          ? { fd: null, info: null }
          : Promise.reject(fromFsError(error, rel)),
      );
      const changing = () =>
        new WorkspaceError("CONFLICT", `'${rel}' kept changing while it was read. Try again once it is left alone.`);
      if (fd === null) {
        if (attempt >= 2) throw changing();
        return this.currentSide(filePath, attempt + 1);
      }
      // At most the size it had when opened: a file that grows meanwhile is not read without end.
      const bytes = await withFd(fd, () => readFdBounded(fd, opened.size, opened.size));
      if (!bytes) throw changing();
      return { bytes, mode: opened.mode & 0o111 ? EXECUTABLE_MODE : "100644" };
    });
  }
}

function reviewable(side: FileSide): boolean {
  return side.mode !== SYMLINK_MODE && (side.bytes === null || isText(side.bytes));
}
