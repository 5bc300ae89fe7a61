import yauzl, { type Entry } from "yauzl";
import { receiveFile, type OnExists } from "./receive";
import type { Workspace } from "./workspace";
import { ensureRoom } from "./write-budget";

// Unpacks a zip (an upload's, or one in the workspace the archive tool names) into a workspace folder, safely: every entry is read and checked before
// anything is written (names that climb out or are absolute, which yauzl refuses, symbolic links,
// the entry count, the total size), so a bad archive writes nothing; then each file is streamed in
// through receiveFile, which contains it like any upload. Declared sizes are enforced while
// inflating (validateEntrySizes), so a zip bomb stops at its first lie.

export class ZipRefusedError extends Error {}

export type ZipLimits = { maxBytes: number; maxEntries: number };

/** One entry of an archive as listed: its name as stored, its type and its unpacked size. */
export type ArchiveEntry = { name: string; type: "file" | "directory" | "symlink" | "other"; size: number };

const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;

/** The one folder every entry sits in (GitHub's "repo-main/"), which a new project does without. */
function commonRoot(names: string[]): string {
  const first = names[0]?.split("/")[0];
  if (!first || names.some((name) => !name.startsWith(`${first}/`))) return "";
  return `${first}/`;
}

const ZIP_OPTIONS = { lazyEntries: true, autoClose: false, validateEntrySizes: true, strictFileNames: true };

/** A zip from a file the server holds (an upload's temp file) or from bytes already read from the workspace. */
function openZip(source: string | Buffer) {
  const opening =
    typeof source === "string" ? yauzl.openPromise(source, ZIP_OPTIONS) : yauzl.fromBufferPromise(source, ZIP_OPTIONS);
  return opening.catch((error: Error) => {
    throw new ZipRefusedError(`This is not a zip file that can be read: ${error.message}`);
  });
}

/** What a zip holds, as stored (yauzl refuses absolute and climbing names while reading the directory). */
export async function listZip(source: Buffer, maxEntries: number): Promise<ArchiveEntry[]> {
  const zip = await openZip(source);
  try {
    const entries: ArchiveEntry[] = [];
    for await (const entry of zip.eachEntry()) {
      const mode = (entry.externalFileAttributes >>> 16) & S_IFMT;
      const type = mode === S_IFLNK ? "symlink" : entry.fileName.endsWith("/") ? "directory" : "file";
      entries.push({ name: entry.fileName, type, size: entry.uncompressedSize });
      if (entries.length >= maxEntries) break;
    }
    return entries;
  } catch (error) {
    throw new ZipRefusedError(`The zip was refused: ${(error as Error).message}.`);
  } finally {
    zip.close();
  }
}

export async function importZip(
  workspace: Workspace,
  source: string | Buffer,
  options: { dir: string; onExists: OnExists; limits: ZipLimits; stripRoot?: boolean },
): Promise<{ files: { path: string; size: number }[] }> {
  const zip = await openZip(source);
  try {
    const entries: Entry[] = [];
    let total = 0;
    try {
      for await (const entry of zip.eachEntry()) {
        if (((entry.externalFileAttributes >>> 16) & S_IFMT) === S_IFLNK) {
          throw new ZipRefusedError(
            `The zip holds a symbolic link (${entry.fileName}); links are not unpacked here. Remove it and try again.`,
          );
        }
        if (entry.fileName.endsWith("/")) continue;
        entries.push(entry);
        total += entry.uncompressedSize;
        if (entries.length > options.limits.maxEntries)
          throw new ZipRefusedError(`The zip holds more than ${options.limits.maxEntries} files, the limit here.`);
        if (total > options.limits.maxBytes)
          throw new ZipRefusedError(
            `The zip unpacks to more than ${Math.round(options.limits.maxBytes / 1024 / 1024)} MB, the limit here.`,
          );
      }
    } catch (error) {
      if (error instanceof ZipRefusedError) throw error;
      throw new ZipRefusedError(`The zip was refused: ${(error as Error).message}.`);
    }
    // A zip that does not fit in the disk budget left writes nothing (each file is counted again as it lands).
    await ensureRoom(workspace, total, `The zip (${entries.length} files, ${(total / 1024 / 1024).toFixed(1)} MB)`);
    const root = options.stripRoot ? commonRoot(entries.map((e) => e.fileName)) : "";
    const files: { path: string; size: number }[] = [];
    let left = options.limits.maxBytes;
    for (const entry of entries) {
      const name = entry.fileName.slice(root.length);
      const stream = await zip.openReadStreamPromise(entry);
      const written = await receiveFile(workspace, options.dir ? `${options.dir}/${name}` : name, stream, {
        onExists: options.onExists,
        maxBytes: left,
      });
      left -= written.size;
      files.push(written);
      // A script packed on Unix stays executable (git's one mode bit; nothing else of the mode is taken).
      if (entry.versionMadeBy >> 8 === 3 && (entry.externalFileAttributes >>> 16) & 0o111)
        await workspace.makeExecutable(written.path);
    }
    return { files };
  } finally {
    zip.close();
  }
}
