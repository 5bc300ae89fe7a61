// Skipping a flood's plain text that would scroll out of the scrollback anyway: parsing it cannot
// change the final screen. The server's screen mirror and the browser's xterm.js both skip it, so
// `cat big.log` costs each parser about one scrollback of text per batch instead of every byte.

/**
 * A range of `text` that may be skipped: plain, after the last state change, and followed by
 * enough to determine the buffer alone. Skipping changes only the cursor at the cut; the two parses
 * agree again once `rows + 1` newlines (cursor at the bottom) and then a carriage return (column 0)
 * have passed, and all before that must then scroll out: `keepLines` more newlines.
 */
export function plainSkip(text: string, keepLines: number, rows: number): { from: number; to: number } | null {
  // Native searches (lastIndexOf, a regular expression per block) rather than a loop over every
  // character: this runs for each half megabyte of a flood, so it is on the hot path.
  let at = text.length;
  for (let kept = 0; kept < keepLines && at >= 0; kept++) at = lastIndexBefore(text, "\n", at);
  at = lastIndexBefore(text, "\r", at);
  for (let margin = 0; margin < rows + 2 && at >= 0; margin++) at = lastIndexBefore(text, "\n", at);
  if (at < 0) return null;
  const to = at + 1;
  const lastState = lastStatefulIndex(text, to);
  // Start after the line holding the last state change, so no escape sequence is cut in two.
  const from = lastState === -1 ? 0 : text.indexOf("\n", lastState) + 1;
  if (lastState !== -1 && from === 0) return null;
  return from < to ? { from, to } : null;
}

/**
 * plainSkip for text that follows other output: `before` is the parser's state where `text`
 * starts (`ascii` as for sequenceStateAt). Text is skipped only from plain text, never from inside
 * a sequence begun before `text` (an escape cut in two by a read): then the skip starts on the
 * line after the one where that sequence ends, or there is none.
 */
export function plainSkipAfter(
  text: string,
  keepLines: number,
  rows: number,
  before: SequenceState,
  ascii = false,
): { from: number; to: number } | null {
  const skip = plainSkip(text, keepLines, rows);
  if (!skip || sequenceStateAt(text, skip.from, before, ascii) === "ground") return skip;
  const from = text.indexOf("\n", skip.from) + 1;
  return from > 0 && from < skip.to && sequenceStateAt(text, from, before, ascii) === "ground"
    ? { from, to: skip.to }
    : null;
}

/** The last index of `char` before `end`, or -1. */
function lastIndexBefore(text: string, char: string, end: number): number {
  return end <= 0 ? -1 : text.lastIndexOf(char, end - 1);
}

// Anything that can change terminal state beyond the current line: ESC, C1 and most C0 controls
// (tab, backspace, bell, CR and LF only move within or between lines).
const STATEFUL = /[\x00-\x06\x0b\x0c\x0e-\x1f\x7f-\x9f]/;
const STATEFUL_BLOCK = 16 * 1024;

function lastStatefulIndex(text: string, end: number): number {
  for (let blockEnd = end; blockEnd > 0; blockEnd -= STATEFUL_BLOCK) {
    const blockStart = Math.max(0, blockEnd - STATEFUL_BLOCK);
    if (!STATEFUL.test(text.slice(blockStart, blockEnd))) continue;
    for (let i = blockEnd - 1; i >= blockStart; i--) if (STATEFUL.test(text[i]!)) return i;
  }
  return -1;
}

/**
 * Where the parser is between two pieces of output: on plain text ("ground"), inside an escape,
 * control or string sequence, or "unknown" (after C1 controls, which this does not follow).
 * Plain text may be skipped only from ground: cutting into a sequence would change what it means.
 */
export type SequenceState = "ground" | "escape" | "intermediate" | "csi" | "osc" | "dcs" | "unknown";

const ESC = 0x1b;
const BEL = 0x07;
const CAN = 0x18;
const SUB = 0x1a;
const C1 = /[\x80-\x9f]/;

/**
 * The parser's state after `text[0, end)`, given its state before `text`; `ascii` when the text is
 * known to hold only ASCII. Follows only what a
 * sequence needs to end (ECMA-48 / VT500 states, as xterm.js parses them), from the last ESC on:
 * an ESC starts a new sequence whatever came before. Loops over characters only from that ESC
 * until the sequence ends, which is usually a few characters.
 */
export function sequenceStateAt(text: string, end: number, before: SequenceState, ascii = false): SequenceState {
  const lastEscape = end <= 0 ? -1 : text.lastIndexOf("\x1b", end - 1);
  const start = Math.max(0, lastEscape);
  // `ascii`: the caller knows the text has no C1 controls (their search is most of this function's time).
  if (!ascii && C1.test(start === 0 && end === text.length ? text : text.slice(start, end))) return "unknown";
  let state: SequenceState = lastEscape === -1 ? before : "ground";
  if (state === "unknown") return state;
  for (let i = lastEscape === -1 ? 0 : lastEscape; i < end && (state !== "ground" || i === lastEscape); i++) {
    state = next(state, text.charCodeAt(i));
  }
  return state;
}

function next(state: SequenceState, code: number): SequenceState {
  if (code === ESC) return "escape";
  if (code === CAN || code === SUB) return "ground";
  switch (state) {
    case "escape":
      if (code === 0x5b) return "csi"; // [
      if (code === 0x5d) return "osc"; // ]
      if (code === 0x50 || code === 0x58 || code === 0x5e || code === 0x5f) return "dcs"; // P X ^ _
      if (code >= 0x20 && code <= 0x2f) return "intermediate";
      return code >= 0x30 && code <= 0x7e ? "ground" : "escape";
    case "intermediate":
      return code >= 0x30 && code <= 0x7e ? "ground" : "intermediate";
    case "csi":
      return code >= 0x40 && code <= 0x7e ? "ground" : "csi";
    case "osc":
      return code === BEL ? "ground" : "osc";
    default:
      // ground stays ground (only ESC and C1 leave it); a DCS-like string ends only with ESC \.
      return state;
  }
}
