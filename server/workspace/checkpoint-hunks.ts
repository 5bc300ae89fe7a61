import { isUtf8 } from "node:buffer";
import { structuredPatch } from "diff";

/** One changed region of a text file between a checkpoint (old) and the workspace (new). */
export interface Hunk {
  /** Position in the file's hunk list; what rejectHunk and acceptHunk take. */
  index: number;
  /** 1-based first line of the region in the checkpoint's version. */
  oldStart: number;
  oldLines: number;
  /** 1-based first line of the region in the current version. */
  newStart: number;
  newLines: number;
  /** Unified-diff lines without their line break: ' ' context, '-' checkpoint only, '+' current only. */
  lines: string[];
}

const CONTEXT_LINES = 3;
const SNIFF_BYTES = 8000;
const utf8Decoder = new TextDecoder("utf-8", { ignoreBOM: true });

/** git's rule: a NUL byte near the start means binary. */
export function isText(bytes: Buffer): boolean {
  return !bytes.subarray(0, SNIFF_BYTES).includes(0);
}

export function computeHunks(base: Buffer, current: Buffer): Hunk[] {
  // Latin-1 maps bytes 1:1, so files that are not valid UTF-8 still diff by their exact bytes.
  const utf8 = isUtf8(base) && isUtf8(current);
  const decode = (bytes: Buffer) => (utf8 ? utf8Decoder.decode(bytes) : bytes.toString("latin1"));
  const patch = structuredPatch("a", "b", decode(base), decode(current), undefined, undefined, {
    context: CONTEXT_LINES,
  });
  return patch.hunks.map((hunk, index) => ({
    index,
    oldStart: hunk.oldStart,
    oldLines: hunk.oldLines,
    newStart: hunk.newStart,
    newLines: hunk.newLines,
    lines: hunk.lines,
  }));
}

/** `current` with hunk `index` put back to the checkpoint's lines; every other region stays as it is. */
export function revertHunk(base: Buffer, current: Buffer, index: number): Buffer {
  const hunk = hunkAt(base, current, index);
  const baseLines = splitLines(base);
  const currentLines = splitLines(current);
  return Buffer.concat([
    ...currentLines.slice(0, hunk.newStart - 1),
    ...baseLines.slice(hunk.oldStart - 1, hunk.oldStart - 1 + hunk.oldLines),
    ...currentLines.slice(hunk.newStart - 1 + hunk.newLines),
  ]);
}

/** `base` with hunk `index` taken from `current`: the checkpoint's file once that one change is accepted. */
export function applyHunk(base: Buffer, current: Buffer, index: number): Buffer {
  const hunk = hunkAt(base, current, index);
  const baseLines = splitLines(base);
  const currentLines = splitLines(current);
  return Buffer.concat([
    ...baseLines.slice(0, hunk.oldStart - 1),
    ...currentLines.slice(hunk.newStart - 1, hunk.newStart - 1 + hunk.newLines),
    ...baseLines.slice(hunk.oldStart - 1 + hunk.oldLines),
  ]);
}

function hunkAt(base: Buffer, current: Buffer, index: number): Hunk {
  const hunks = computeHunks(base, current);
  const hunk = hunks[index];
  if (!hunk) throw new RangeError(`hunk ${index} of ${hunks.length}`);
  return hunk;
}

/** Lines with their terminators, split as jsdiff counts them (at "\n"; "\r\n" ends in "\n" too). */
function splitLines(bytes: Buffer): Buffer[] {
  const lines: Buffer[] = [];
  let start = 0;
  for (let at = bytes.indexOf(0x0a); at !== -1; at = bytes.indexOf(0x0a, start)) {
    lines.push(bytes.subarray(start, at + 1));
    start = at + 1;
  }
  if (start < bytes.length) lines.push(bytes.subarray(start));
  return lines;
}
