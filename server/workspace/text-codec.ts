import path from "node:path";
import type { Eol, TextEncoding } from "@/lib/fs-schemas";

export interface TextFormat {
  encoding: TextEncoding;
  bom: boolean;
  eol: Eol;
}

export type Decoded =
  | ({ kind: "text"; content: string; lossy: boolean } & TextFormat)
  | { kind: "binary"; mime?: string };

const SNIFF_BYTES = 8192;

const BINARY_MIME: Record<string, string | undefined> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".ico": "image/x-icon",
  ".bmp": "image/bmp",
  ".avif": "image/avif",
  ".pdf": "application/pdf",
  ".zip": "application/zip",
  ".gz": "application/gzip",
  ".tgz": "application/gzip",
  ".tar": "application/x-tar",
  ".7z": "application/x-7z-compressed",
  ".woff": "font/woff",
  ".woff2": "font/woff2",
  ".ttf": "font/ttf",
  ".otf": "font/otf",
  ".mp3": "audio/mpeg",
  ".wav": "audio/wav",
  ".ogg": "audio/ogg",
  ".mp4": "video/mp4",
  ".webm": "video/webm",
  ".wasm": "application/wasm",
  ".sqlite": "application/vnd.sqlite3",
  ".exe": undefined,
  ".dll": undefined,
  ".so": undefined,
  ".dylib": undefined,
  ".o": undefined,
  ".a": undefined,
  ".class": undefined,
  ".jar": "application/java-archive",
  ".pyc": undefined,
  ".db": undefined,
  ".bin": undefined,
};

/** Mime type by extension for files we never treat as text, or null when the extension says nothing. */
function knownBinary(fileName: string): { mime?: string } | null {
  const ext = path.extname(fileName).toLowerCase();
  if (!(ext in BINARY_MIME)) return null;
  const mime = BINARY_MIME[ext];
  return mime ? { mime } : {};
}

function detectEol(content: string): Eol {
  let crlf = 0;
  let lf = 0;
  for (let i = content.indexOf("\n"); i !== -1; i = content.indexOf("\n", i + 1)) {
    if (i > 0 && content.charCodeAt(i - 1) === 13) crlf++;
    else lf++;
  }
  return crlf > lf ? "\r\n" : "\n";
}

/** The sniff window minus a multi-byte sequence cut in half at its end. */
function sniffWindow(bytes: Buffer): Buffer {
  if (bytes.length <= SNIFF_BYTES) return bytes;
  let end = SNIFF_BYTES;
  for (let back = 1; back <= 3; back++) {
    const b = bytes[SNIFF_BYTES - back];
    if ((b & 0xc0) === 0xc0) end = SNIFF_BYTES - back;
    if ((b & 0x80) === 0 || (b & 0xc0) === 0xc0) break;
  }
  return bytes.subarray(0, end);
}

function swapBytes(bytes: Buffer): Buffer {
  const out = Buffer.from(bytes.subarray(0, bytes.length - (bytes.length % 2)));
  return out.swap16();
}

function text(content: string, format: TextFormat, lossy = false): Decoded {
  return { kind: "text", content, lossy, ...format, eol: detectEol(content) };
}

/**
 * Text or binary: a UTF-16 BOM means UTF-16; otherwise NUL bytes or invalid UTF-8 in the first
 * 8 KB, or a known binary extension, mean binary. Invalid UTF-8 further on still reads as text
 * but `lossy`, since writing it back would replace those bytes.
 */
export function decode(bytes: Buffer, fileName: string): Decoded {
  const byExtension = knownBinary(fileName);
  if (byExtension) return { kind: "binary", ...byExtension };

  if (bytes[0] === 0xff && bytes[1] === 0xfe) {
    return text(bytes.subarray(2).toString("utf16le"), { encoding: "utf16le", bom: true, eol: "\n" });
  }
  if (bytes[0] === 0xfe && bytes[1] === 0xff) {
    return text(swapBytes(bytes.subarray(2)).toString("utf16le"), { encoding: "utf16be", bom: true, eol: "\n" });
  }
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  const body = bom ? bytes.subarray(3) : bytes;
  const window = sniffWindow(body);
  if (window.includes(0)) return { kind: "binary" };
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(window);
  } catch {
    return { kind: "binary" };
  }
  const format: TextFormat = { encoding: "utf8", bom, eol: "\n" };
  try {
    return text(new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(body), format);
  } catch {
    return text(new TextDecoder("utf-8", { ignoreBOM: true }).decode(body), format, true);
  }
}

/** The format to write new content in when the file has none yet. */
export const DEFAULT_FORMAT: TextFormat = { encoding: "utf8", bom: false, eol: "\n" };

/**
 * Line-ending rule: when the target style is CRLF, every lone LF is written as CRLF, so an editor
 * that sends LF cannot silently convert a Windows file. When it is LF, content is written as
 * given: a CR the client kept is taken to be deliberate.
 */
export function encode(content: string, format: TextFormat): Buffer {
  const body = format.eol === "\r\n" ? content.replace(/\r?\n/g, "\r\n") : content;
  switch (format.encoding) {
    case "utf16le":
      return Buffer.concat([format.bom ? Buffer.from([0xff, 0xfe]) : Buffer.alloc(0), Buffer.from(body, "utf16le")]);
    case "utf16be":
      return Buffer.concat([
        format.bom ? Buffer.from([0xfe, 0xff]) : Buffer.alloc(0),
        Buffer.from(body, "utf16le").swap16(),
      ]);
    case "utf8":
      return Buffer.concat([format.bom ? Buffer.from([0xef, 0xbb, 0xbf]) : Buffer.alloc(0), Buffer.from(body, "utf8")]);
  }
}
