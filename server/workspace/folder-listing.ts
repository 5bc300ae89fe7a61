import type { FileEntry, FileType } from "@/lib/fs-schemas";
import { isTempFileName } from "./atomic-write";
import { lstatAtIfExists, readDirBeneath, withFd } from "./beneath";
import { WorkspaceError, errnoCode, fromFsError } from "./errors";
import { shown } from "./file-limits";
import type { IgnoreRules } from "./ignore-rules";

/**
 * One folder's entries with each one's permission bits (lstat: a link's own), read beneath the
 * root: folders first, then by name.
 */
export async function listFolder(
  root: string,
  ignoreRules: IgnoreRules,
  requested: string,
): Promise<(FileEntry & { mode: number })[]> {
  const { dirFd, names } = await readDirBeneath(root, requested).catch((error: unknown) =>
    Promise.reject(
      errnoCode(error) === "ENOTDIR"
        ? new WorkspaceError("NOT_A_DIRECTORY", `${shown(requested)} is a file, not a folder. Read it instead.`)
        : fromFsError(error, requested),
    ),
  );
  const entries = await withFd(dirFd, async () => {
    const isIgnored = await ignoreRules.forDirectory(requested);
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
          path: requested === "" ? name : `${requested}/${name}`,
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
