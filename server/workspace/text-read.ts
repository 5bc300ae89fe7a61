import path from "node:path";
import type { ReadResult } from "@/lib/fs-schemas";
import { READ_ONLY_BYTES, megabytes, versionOf } from "./file-limits";
import { decode } from "./text-codec";

/**
 * What a read file is to an editor or the model: its text, encoding and version, read-only with
 * a notice when it is too large to edit or saving would lose bytes; or that it is binary.
 */
export function readResultOf(bytes: Buffer, requested: string, realPath: string): ReadResult {
  const version = versionOf(bytes);
  const decoded = decode(bytes, path.posix.basename(realPath));
  if (decoded.kind === "binary") {
    return {
      kind: "binary",
      path: requested,
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
    path: requested,
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
