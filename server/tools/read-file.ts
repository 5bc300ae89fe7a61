import path from "node:path";
import { z } from "zod";
import { defineTool, type ToolContext, type ToolResult } from "./define-tool";
import { loadFile, type LoadedFile } from "./file-state";
import { ToolFailure, ok } from "./result";
import { formatSize, numberLines } from "./text-window";
import { importedPaths } from "./prefetch";
import { DEFAULT_LIMITS } from "./truncate";

/**
 * The session's output cap, which is the only limit on a read: a result holds at most this many
 * lines and characters (the wrapper's cut, registry.ts), less room for the notes. read_file stops at
 * a whole line within it itself, so its note can say exactly where to read on.
 */
const READ_CAP = { lines: DEFAULT_LIMITS.maxLines - 10, chars: DEFAULT_LIMITS.maxChars - 1_000 };
const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

const IMAGE_TYPES: Record<string, string> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".bmp": "image/bmp",
  ".svg": "image/svg+xml",
};

const DESCRIPTION = `Reads a file from the workspace.
- Each line comes back prefixed with its number and a tab ("    42\\t"); the prefix is not part of the file: leave it out of old_string.
- Without offset and limit, the whole file as far as one result holds (${READ_CAP.lines.toLocaleString("en")} lines); a note says how to read on.
- Images come back as images when the model can view them; PDFs as text; other binary files as a summary.
- The same unchanged lines read twice answer with a short note instead.`;

export const readFileInput = z.object({
  path: z.string().min(1).describe("File to read: relative to the workspace root, or absolute inside it."),
  offset: z.number().int().min(1).optional().describe("1-based line number to start from."),
  limit: z.number().int().min(1).optional().describe("How many lines to read (default: to the end of the file)."),
});

export const readFileTool = defineTool({
  name: "read_file",
  kind: "read",
  description: DESCRIPTION,
  input: readFileInput,
  describe: (input) => `Read ${input.path}${input.offset ? ` from line ${input.offset}` : ""}`,
  async execute(input, ctx) {
    const file = await loadFile(ctx, input.path);
    const ext = path.posix.extname(file.resolved.path).toLowerCase();
    const label = file.resolved.requested;
    if (IMAGE_TYPES[ext]) return readImage(ctx, file, IMAGE_TYPES[ext]!);
    const offset = input.offset ?? 1;
    const limit = input.limit ?? Number.POSITIVE_INFINITY;
    const view = `${offset}:${input.limit ?? "end"}`;
    if (ext === ".pdf") {
      const text = await pdfText(file.bytes, label);
      return textResult(ctx, file, text, offset, limit, view, "PDF text");
    }
    if (file.decoded.kind === "binary") {
      ctx.reads.recordRead(file.resolved.path, file.version, "binary");
      const what = file.decoded.mime ? `${file.decoded.mime}, ` : "";
      const message = `'${label}' is a binary file (${what}${formatSize(file.bytes.length)}). Its first ${Math.min(HEX_BYTES, file.bytes.length)} bytes:\n${hexSummary(file.bytes.subarray(0, HEX_BYTES))}\nUse the shell to inspect more (file, xxd | head, unzip -l, …).`;
      return ok(
        message,
        { kind: "text", text: `Binary file ${label} (${formatSize(file.bytes.length)})` },
        { path: label, binary: true },
      );
    }
    const content = file.decoded.eol === "\r\n" ? file.decoded.content.replace(/\r\n/g, "\n") : file.decoded.content;
    ctx.prefetch?.hint(ctx.workspace, importedPaths(label, content));
    const result = textResult(ctx, file, content, offset, limit, view, "");
    if (file.decoded.lossy && typeof result.llm === "string" && !result.error) {
      result.llm +=
        "\n[This file has bytes that are not valid UTF-8, shown as �. edit and write_file refuse it; use the shell to change it.]";
    }
    return result;
  },
});

function textResult(
  ctx: ToolContext,
  file: LoadedFile,
  content: string,
  offset: number,
  limit: number,
  view: string,
  kind: string,
): ToolResult {
  const label = file.resolved.requested;
  const window = numberLines(content, offset, Math.min(limit, READ_CAP.lines), READ_CAP.chars);
  if (window.total === 0) {
    ctx.reads.recordRead(file.resolved.path, file.version, view);
    return ok(`'${label}' is empty.`, { kind: "text", text: `Read ${label} (empty)` }, { path: label, lines: 0 });
  }
  if (offset > window.total) {
    throw new ToolFailure(
      "INVALID_INPUT",
      `offset ${offset} is past the end of '${label}', which has ${window.total} lines. Use an offset from 1 to ${window.total}.`,
    );
  }
  const repeated = ctx.reads.recordRead(file.resolved.path, file.version, view);
  const range = `lines ${offset}-${window.end} of ${window.total}`;
  if (repeated) {
    return ok(
      `'${label}' has not changed since you read ${range} earlier in this session; that output is still current, so it is not repeated here.`,
      { kind: "text", text: `Read ${label} (unchanged)` },
      { path: label, unchanged: true },
    );
  }
  const notes: string[] = [];
  const wanted = Math.min(window.total, offset + limit - 1);
  if (window.end < wanted)
    notes.push(
      `[Showing ${range}: one result holds at most ${READ_CAP.lines.toLocaleString("en")} lines and ${READ_CAP.chars.toLocaleString("en")} characters. To read on, call read_file with offset=${window.end + 1}.]`,
    );
  else if (window.end < window.total)
    notes.push(`[Showing ${range}. To read more, call read_file with offset=${window.end + 1}.]`);
  if (window.cutLines > 0)
    notes.push(
      `[${window.cutLines} line(s) longer than 2000 characters were cut; use grep or the shell to see them whole.]`,
    );
  const header = kind ? `[${kind} of '${label}']\n` : "";
  const llm = `${header}${window.text}${notes.length ? `\n${notes.join("\n")}` : ""}`;
  return ok(
    llm,
    { kind: "text", text: `Read ${label} (${range})` },
    { path: label, lines: window.end - offset + 1, totalLines: window.total },
  );
}

function readImage(ctx: ToolContext, file: LoadedFile, mediaType: string): ToolResult {
  const label = file.resolved.requested;
  if (file.bytes.length > MAX_IMAGE_BYTES) {
    throw new ToolFailure(
      "TOO_LARGE",
      `'${label}' is ${formatSize(file.bytes.length)}; images over ${formatSize(MAX_IMAGE_BYTES)} are not sent to the model. Resize it in the shell first if you need to see it.`,
    );
  }
  ctx.reads.recordRead(file.resolved.path, file.version, "image");
  const display = { kind: "image" as const, path: label, mediaType, size: file.bytes.length };
  if (ctx.modelAcceptsImages === false) {
    return ok(
      `'${label}' is an image (${mediaType}, ${formatSize(file.bytes.length)}). The current model cannot view images.`,
      display,
      { path: label },
    );
  }
  return ok(
    [
      { type: "text", text: `Image '${label}' (${mediaType}, ${formatSize(file.bytes.length)}):` },
      { type: "image", data: file.bytes.toString("base64"), mediaType },
    ],
    display,
    { path: label },
  );
}

const HEX_BYTES = 64;

/** `xxd`-style lines: offset, 16 bytes in hex, and the printable ASCII of them (others as '.'). */
function hexSummary(bytes: Uint8Array): string {
  const lines: string[] = [];
  for (let at = 0; at < bytes.length; at += 16) {
    const row = [...bytes.subarray(at, at + 16)];
    const hex = row
      .map((b) => b.toString(16).padStart(2, "0"))
      .join(" ")
      .padEnd(47);
    const ascii = row.map((b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : ".")).join("");
    lines.push(`${at.toString(16).padStart(8, "0")}: ${hex}  ${ascii}`);
  }
  return lines.join("\n");
}

async function pdfText(bytes: Buffer, label: string): Promise<string> {
  const { extractText, getDocumentProxy } = await import("unpdf");
  try {
    const pdf = await getDocumentProxy(new Uint8Array(bytes));
    const { text } = await extractText(pdf, { mergePages: false });
    return text.map((page, i) => `--- Page ${i + 1} ---\n${page}`).join("\n");
  } catch (error) {
    throw new ToolFailure(
      "BINARY_FILE",
      `'${label}' could not be read as a PDF (${(error as Error).message}). It may be damaged or encrypted.`,
    );
  }
}
