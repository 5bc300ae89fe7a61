import { Readable } from "node:stream";
import { gunzipSync } from "node:zlib";
import { Parser, type ReadEntry } from "tar";
import { receiveFile, type OnExists } from "./receive";
import type { Workspace } from "./workspace";
import { ensureRoom } from "./write-budget";
import type { ArchiveEntry, ZipLimits } from "./zip-import";

// Unpacks a tar (plain or gzipped) from bytes read from the workspace, with the zip's guards
// (zip-import.ts): every entry is read and checked before anything is written, so a bad archive
// writes nothing: names that are absolute or climb out, links (symbolic and hard), devices and
// FIFOs are refused, and so are too many entries or too many bytes. Decompression stops at the
// size cap (a gzip bomb inflates no further than that), and each file lands through receiveFile,
// contained like any upload.

export class TarRefusedError extends Error {}

const FILE_TYPES = new Set(["File", "OldFile", "ContiguousFile"]);
const GZIP = [0x1f, 0x8b];
/** Headers and padding: a tar is its files' bytes plus 512 bytes per entry and its end blocks. */
const overhead = (entries: number) => 512 * (2 * entries + 2) + 10 * 1024;

type Collected = { name: string; type: ArchiveEntry["type"]; tarType: string; size: number; chunks: Buffer[] };

function typeOf(entry: ReadEntry): ArchiveEntry["type"] {
  if (FILE_TYPES.has(entry.type)) return "file";
  if (entry.type === "Directory") return "directory";
  if (entry.type === "SymbolicLink" || entry.type === "Link") return "symlink";
  return "other";
}

/**
 * Reads the entries. To extract, keeps the files' data and refuses past the limits (checked as it
 * goes); to list, keeps the first `maxEntries` without data. Either way gzip inflates only to the cap.
 */
async function readTar(bytes: Buffer, limits: ZipLimits, keepData: boolean): Promise<Collected[]> {
  let tar = bytes;
  if (bytes[0] === GZIP[0] && bytes[1] === GZIP[1]) {
    const cap = limits.maxBytes + overhead(limits.maxEntries);
    try {
      tar = gunzipSync(bytes, { maxOutputLength: cap });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new TarRefusedError(
        code === "ERR_BUFFER_TOO_LARGE"
          ? `The archive unpacks to more than ${Math.round(limits.maxBytes / 1024 / 1024)} MB, the limit here.`
          : `This is not a gzipped tar that can be read: ${(error as Error).message}.`,
      );
    }
  }
  const entries: Collected[] = [];
  let refusal: string | null = null;
  let total = 0;
  const parser = new Parser({ strict: true });
  parser.on("entry", (entry: ReadEntry) => {
    const collected: Collected = {
      name: entry.path,
      type: typeOf(entry),
      tarType: entry.type,
      size: entry.size ?? 0,
      chunks: [],
    };
    if (!keepData) {
      if (entries.length < limits.maxEntries) entries.push(collected);
      entry.resume();
      return;
    }
    entries.push(collected);
    if (collected.type === "file") total += collected.size;
    if (!refusal && entries.length > limits.maxEntries)
      refusal = `The archive holds more than ${limits.maxEntries} entries, the limit here.`;
    if (!refusal && total > limits.maxBytes)
      refusal = `The archive unpacks to more than ${Math.round(limits.maxBytes / 1024 / 1024)} MB, the limit here.`;
    if (!refusal && collected.type === "file") entry.on("data", (chunk: Buffer) => collected.chunks.push(chunk));
    else entry.resume();
  });
  await new Promise<void>((resolve, reject) => {
    parser.on("error", (error: Error) =>
      reject(new TarRefusedError(`This is not a tar that can be read: ${error.message}.`)),
    );
    parser.on("end", () => resolve());
    parser.end(tar);
  });
  if (refusal) throw new TarRefusedError(refusal);
  return entries;
}

/** What a tar holds, as stored. */
export async function listTar(bytes: Buffer, limits: ZipLimits): Promise<ArchiveEntry[]> {
  return (await readTar(bytes, limits, false)).map(({ name, type, size }) => ({ name, type, size }));
}

/** A name as it will be written, or why it is refused. */
function safeName(name: string): string {
  const trimmed = name.replace(/^(\.\/)+/, "").replace(/\/+$/, "");
  if (name.startsWith("/") || /^[A-Za-z]:[\\/]/.test(name))
    throw new TarRefusedError(`The archive holds an absolute path (${name}); nothing was unpacked.`);
  if (trimmed.split(/[\\/]/).includes("..") || name.includes("\0"))
    throw new TarRefusedError(`The archive holds a path that climbs out (${name}); nothing was unpacked.`);
  return trimmed;
}

export async function importTar(
  workspace: Workspace,
  bytes: Buffer,
  options: { dir: string; onExists: OnExists; limits: ZipLimits },
): Promise<{ files: { path: string; size: number }[] }> {
  const entries = await readTar(bytes, options.limits, true);
  const files: Collected[] = [];
  for (const entry of entries) {
    const name = safeName(entry.name);
    if (entry.type === "symlink")
      throw new TarRefusedError(
        `The archive holds a link (${entry.name}); links are not unpacked here. Nothing was unpacked.`,
      );
    if (entry.type === "other")
      throw new TarRefusedError(
        `The archive holds a ${entry.tarType} entry (${entry.name}); only regular files and folders are unpacked. Nothing was unpacked.`,
      );
    if (entry.type === "file" && name) files.push({ ...entry, name });
  }
  const total = files.reduce((sum, f) => sum + f.size, 0);
  await ensureRoom(workspace, total, `The archive (${files.length} files, ${(total / 1024 / 1024).toFixed(1)} MB)`);
  const written: { path: string; size: number }[] = [];
  let left = options.limits.maxBytes;
  for (const file of files) {
    const landed = await receiveFile(
      workspace,
      options.dir ? `${options.dir}/${file.name}` : file.name,
      Readable.from(file.chunks),
      {
        onExists: options.onExists,
        maxBytes: left,
      },
    );
    left -= landed.size;
    written.push(landed);
  }
  return { files: written };
}
