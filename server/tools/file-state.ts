import path from "node:path";
import type { ResolvedPath } from "@/server/workspace";
import { versionOf } from "@/server/workspace";
import { decode, type Decoded } from "@/server/workspace/text-codec";
import type { ToolContext } from "./define-tool";
import { ToolFailure } from "./result";

export interface LoadedFile {
  resolved: ResolvedPath;
  bytes: Buffer;
  version: string;
  decoded: Decoded;
}

/** Reads a workspace file's bytes and decodes them (text with its format, or binary). */
export async function loadFile(ctx: ToolContext, input: string): Promise<LoadedFile> {
  const resolved = await ctx.workspace.resolve(input);
  const bytes = (await ctx.prefetch?.take(ctx.workspace, resolved)) ?? (await ctx.workspace.readBytes(input));
  return { resolved, bytes, version: versionOf(bytes), decoded: decode(bytes, path.posix.basename(resolved.path)) };
}

/** Like `loadFile`, but null when nothing is at `input` yet. */
export async function loadFileIfExists(ctx: ToolContext, input: string): Promise<LoadedFile | null> {
  try {
    return await loadFile(ctx, input);
  } catch (error) {
    if (error instanceof Error && "code" in error && (error as { code: unknown }).code === "NOT_FOUND") return null;
    throw error;
  }
}

/**
 * A file may only be changed by a session that has seen its current version: otherwise a
 * person's edit made since (or never seen) would be overwritten.
 */
export function assertFresh(ctx: ToolContext, file: LoadedFile, toolName: string): void {
  const seen = ctx.reads.seenVersion(file.resolved.path);
  const shown = file.resolved.requested;
  if (seen === undefined) {
    throw new ToolFailure(
      "STALE_READ",
      `'${shown}' already exists and you have not read it in this session. Read it with read_file first, so you see what is there, then call ${toolName} again.`,
    );
  }
  if (seen !== file.version) {
    throw new ToolFailure(
      "STALE_READ",
      `'${shown}' changed since you last read it (a person or another tool saved it). Read it again with read_file and redo your change on the current content.`,
    );
  }
}

/**
 * The call wrote `version` of `path` (root-relative, links followed): the session may write it
 * again without reading, and people who have it open live see the change now, with the agent's cursor.
 */
export function recordWrite(ctx: ToolContext, path: string, version: string): void {
  ctx.reads.recordWrite(path, version);
  ctx.liveEdits?.wrote(path, version);
  ctx.wrote?.(path);
}

/** Text content of a loaded file with CRLF folded to LF (the form the model sees and edits). */
export function editableText(file: LoadedFile, toolName: string): { text: string; eol: "\n" | "\r\n" } {
  if (file.decoded.kind === "binary") {
    throw new ToolFailure(
      "BINARY_FILE",
      `'${file.resolved.requested}' is a binary file; ${toolName} only changes text files.`,
    );
  }
  if (file.decoded.lossy) {
    throw new ToolFailure(
      "READ_ONLY",
      `'${file.resolved.requested}' contains bytes that are not valid UTF-8; changing it here would corrupt them. Use the shell (e.g. sed) if the change is needed.`,
    );
  }
  const { content, eol } = file.decoded;
  return { text: eol === "\r\n" ? content.replace(/\r\n/g, "\n") : content, eol };
}
