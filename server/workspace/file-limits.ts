import { createHash } from "node:crypto";
import { WorkspaceError } from "./errors";

// What a workspace file may be to be read or saved through the server, its version, and how a
// path is named in the messages people and the model read.

/** Above this a text file opens read-only: editors and models handle it badly. */
export const READ_ONLY_BYTES = 5 * 1024 * 1024;
/** Above this a file is not read or written through the workspace at all. */
export const MAX_FILE_BYTES = 20 * 1024 * 1024;

/** Content hash, so conflicts are caught even when two saves land in the same mtime tick. */
export function versionOf(bytes: Buffer): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** A root-relative path as a message names it. */
export function shown(p: string): string {
  return p === "" ? "the workspace root" : `'${p}'`;
}

export function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

export function tooLarge(p: string, size: number, limit = MAX_FILE_BYTES): WorkspaceError {
  return new WorkspaceError(
    "TOO_LARGE",
    `${shown(p)} is ${megabytes(size)}; files over ${megabytes(limit)} are not opened or saved here. Use the terminal (head, tail, grep) to work with it.`,
  );
}
