import { isAscii } from "node:buffer";
import type { LineMatch, MatchRef } from "@/lib/search-schemas";

// rg --json prints every matching line whole, and minified files have lines of megabytes:
// decoding and parsing those dominated a search of node_modules. For a long match line this reads
// the JSON bytes directly: the small head (path) and tail (line number, submatches) are parsed,
// and of the line's text only the stretch up to the last match is walked to turn rg's UTF-8 byte
// offsets into UTF-16 columns (up to the first match when the line is ASCII, where offsets are
// columns); only the preview is decoded.

const TEXT_KEY = Buffer.from(',"lines":{"text":"');
const TAIL_KEY = Buffer.from('"},"line_number":');
const BACKSLASH = 0x5c;

type Tail = { line_number: number; submatches: { match: { text?: string }; start: number; end: number }[] };

/** UTF-8 length of the character a JSON \uXXXX escape stands for (a surrogate counts half of 4). */
function escapedBytes(code: number): number {
  if (code < 0x80) return 1;
  if (code < 0x800 || (code >= 0xd800 && code <= 0xdfff)) return 2;
  return 3;
}

/** The value of the four hex digits at `at` (a JSON \uXXXX escape). */
function hex4(text: Buffer, at: number): number {
  let value = 0;
  for (let i = at; i < at + 4; i++) {
    const c = text[i]!;
    value = value * 16 + (c <= 0x39 ? c - 0x30 : (c | 0x20) - 0x57);
  }
  return value;
}

/** Moves `p` back to a point where the JSON string body can be cut: not inside an escape or a UTF-8 character. */
function safeCut(text: Buffer, p: number): number {
  let at = p;
  while (at > 0 && at < text.length && (text[at]! & 0xc0) === 0x80) at--;
  for (let s = at - 1; s >= Math.max(0, at - 5); s--) {
    if (text[s] !== BACKSLASH) continue;
    let run = 0;
    while (s - run - 1 >= 0 && text[s - run - 1] === BACKSLASH) run++;
    if (run % 2 === 1) continue; // this backslash is the second of "\\"
    const length = text[s + 1] === 0x75 ? 6 : 2;
    if (s + length > at) at = s;
    break;
  }
  return at;
}

type Position = { unit: number; p: number };

const isPlain = (c: number) => c < 0x80 && c !== BACKSLASH;

/**
 * Where the run of plain ASCII bytes (no backslash) starting at `p` ends, before `stop`. Aligned
 * words are tested four bytes at a time (any byte with its high bit set, or equal to a backslash),
 * which halves the walk over minified lines; `words` views the buffer's whole memory.
 */
function plainRunEnd(text: Buffer, words: Int32Array, from: number, stop: number): number {
  const base = text.byteOffset;
  let p = from;
  while (p < stop && ((base + p) & 3) !== 0) {
    if (!isPlain(text[p]!)) return p;
    p++;
  }
  while (p + 4 <= stop) {
    const word = words[(base + p) >> 2]!;
    const x = word ^ 0x5c5c5c5c; // a zero byte where the word has a backslash
    if (((word | ((x - 0x01010101) & ~x)) & 0x80808080) !== 0) break;
    p += 4;
  }
  while (p < stop && isPlain(text[p]!)) p++;
  return p;
}

/** JSON text is walked in stretches of about this many bytes. */
const BLOCK = 16 * 1024;

/**
 * Where each byte offset of the line lies in its JSON text (`p`) and in UTF-16 units. JSON of
 * minified code escapes a quote every twenty bytes or so. A stretch of ASCII (most of any line)
 * moves bytes and units together, so only its escapes matter: it is read as a Latin-1 string and
 * V8's indexOf finds them, several times faster than testing its bytes in JavaScript. Other
 * stretches are walked byte by byte (a word at a time through plain ASCII), counting escapes and
 * UTF-8 characters one by one.
 */
function walk(text: Buffer, targets: number[], ascii: boolean): Map<number, Position> {
  const at = new Map<number, Position>();
  const words = new Int32Array(text.buffer, 0, text.buffer.byteLength >> 2);
  const end = text.length;
  let p = 0;
  let byte = 0;
  let unit = 0;
  for (const target of targets) {
    while (byte < target && p < end) {
      // An escape or a character cut by the stretch's end is read whole, from the buffer.
      const stop = Math.min(end, p + BLOCK);
      if (ascii || isAscii(text.subarray(p, stop))) {
        // Through ASCII bytes and units move with the JSON text, so only escapes matter.
        const stretch = text.toString("latin1", p, stop);
        let i = 0;
        while (byte < target && i < stretch.length) {
          const backslash = stretch.indexOf("\\", i);
          const run = (backslash === -1 ? stretch.length : backslash) - i;
          if (byte + run >= target) {
            i += target - byte;
            unit += target - byte;
            byte = target;
            break;
          }
          byte += run;
          unit += run;
          if (backslash === -1) {
            i = stretch.length;
            break;
          }
          const unicode = stretch.charCodeAt(backslash + 1) === 0x75;
          byte += unicode ? escapedBytes(hex4(text, p + backslash + 2)) : 1;
          unit += 1;
          i = backslash + (unicode ? 6 : 2);
        }
        p += i;
        continue;
      }
      while (byte < target && p < stop) {
        const c = text[p]!;
        if (isPlain(c)) {
          // A run of plain ASCII moves bytes, units and JSON text together, so only its end is
          // looked for; escapes and UTF-8 characters are counted one by one.
          const from = p;
          p = plainRunEnd(text, words, p, Math.min(stop, p + (target - byte)));
          byte += p - from;
          unit += p - from;
        } else if (c === BACKSLASH) {
          if (text[p + 1] === 0x75) {
            byte += escapedBytes(hex4(text, p + 2));
            p += 6;
          } else {
            byte += 1;
            p += 2;
          }
          unit += 1;
        } else {
          // A UTF-8 lead byte says the character's length; four bytes make a surrogate pair.
          const length = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
          byte += length;
          unit += length === 4 ? 2 : 1;
          p += length;
        }
      }
    }
    at.set(target, { unit, p });
  }
  return at;
}

/**
 * A long `match` message of rg --json as the results list shows it, or null when it is not in the
 * expected shape (the caller then parses it whole).
 */
export function longLineMatch(
  raw: Buffer,
  previewChars: number,
  previewLead: number,
): { path: string; line: LineMatch } | null {
  const i = raw.indexOf(TEXT_KEY);
  const j = raw.lastIndexOf(TAIL_KEY);
  if (i < 0 || j < i) return null;
  const head = JSON.parse(`${raw.toString("utf8", 0, i)}}}`) as { type: string; data: { path: { text?: string } } };
  const tail = JSON.parse(`{${raw.toString("utf8", j + 3, raw.length - 1)}`) as Tail;
  if (head.type !== "match" || head.data.path.text === undefined || tail.submatches.length === 0) return null;
  const text = raw.subarray(i + TEXT_KEY.length, j);

  // An ASCII line (as minified code mostly is) is walked only to its first match, for the preview:
  // its byte offsets are its UTF-16 columns. rg's JSON (serde_json) writes characters past ASCII as
  // raw UTF-8 and escapes only quotes, backslashes and control characters, so ASCII JSON text is
  // an ASCII line. (A \\uXXXX in the text is the source's own escape, printed as \\\\uXXXX.)
  const ascii = isAscii(text);
  const firstStart = tail.submatches[0]!.start;
  const at = walk(
    text,
    ascii ? [firstStart] : [...new Set(tail.submatches.flatMap((m) => [m.start, m.end]))].sort((a, b) => a - b),
    ascii,
  );
  const unitOf = (offset: number) => (ascii ? offset : at.get(offset)!.unit);

  const first = at.get(firstStart)!;
  const from = safeCut(text, Math.max(0, first.p - previewLead * 2));
  const to = safeCut(text, Math.min(text.length, first.p + previewChars * 6));
  const lead = JSON.parse(`"${text.toString("utf8", from, first.p)}"`) as string;
  const window = (JSON.parse(`"${text.toString("utf8", from, to)}"`) as string).replace(/\r?\n$/, "");
  const keep = Math.min(lead.length, previewLead);
  const previewStart = first.unit - keep;
  const preview = window.slice(lead.length - keep, lead.length - keep + previewChars);
  const clip = (n: number) => Math.max(0, Math.min(preview.length, n - previewStart));
  return {
    path: head.data.path.text,
    line: {
      line: tail.line_number,
      preview,
      previewStart,
      matches: tail.submatches.map((m) => {
        const start = unitOf(m.start);
        return {
          ref: { line: tail.line_number, column: start + 1, text: m.match.text ?? "" } satisfies MatchRef,
          start: clip(start),
          end: clip(unitOf(m.end)),
        };
      }),
    },
  };
}
