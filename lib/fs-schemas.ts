import { z } from "zod";
import type { FileChange } from "@/lib/file-changes";

/** A path inside a project's workspace, relative to its root ("src/index.ts"); "" is the root. */
export const workspacePathSchema = z
  .string()
  .max(4096)
  .refine((p) => !p.includes("\0"), "Paths must not contain NUL bytes.");

const projectIdSchema = z.string().min(1);

export const fileTypeSchema = z.enum(["file", "directory", "symlink"]);
export type FileType = z.infer<typeof fileTypeSchema>;

export const fileEntrySchema = z.object({
  name: z.string(),
  path: z.string(),
  type: fileTypeSchema,
  size: z.number(),
  mtimeMs: z.number(),
  ignored: z.boolean(),
});
export type FileEntry = z.infer<typeof fileEntrySchema>;

export const textEncodingSchema = z.enum(["utf8", "utf16le", "utf16be"]);
export type TextEncoding = z.infer<typeof textEncodingSchema>;

export const eolSchema = z.enum(["\n", "\r\n"]);
export type Eol = z.infer<typeof eolSchema>;

export const textFileSchema = z.object({
  kind: z.literal("text"),
  path: z.string(),
  content: z.string(),
  encoding: textEncodingSchema,
  bom: z.boolean(),
  eol: eolSchema,
  version: z.string(),
  size: z.number(),
  readOnly: z.boolean(),
  notice: z.string().optional(),
});
export type TextFile = z.infer<typeof textFileSchema>;

export const binaryFileSchema = z.object({
  kind: z.literal("binary"),
  path: z.string(),
  size: z.number(),
  version: z.string(),
  mime: z.string().optional(),
});
export type BinaryFile = z.infer<typeof binaryFileSchema>;

export const readResultSchema = z.discriminatedUnion("kind", [textFileSchema, binaryFileSchema]);
export type ReadResult = z.infer<typeof readResultSchema>;

export const fileChangeSchema = z.object({
  type: z.enum(["add", "change", "unlink", "addDir", "unlinkDir"]),
  path: z.string(),
  version: z.string().optional(),
}) satisfies z.ZodType<FileChange>;
export { REREAD_ALL, type FileChange } from "@/lib/file-changes";

export const treeInputSchema = z.object({
  projectId: projectIdSchema,
  path: workspacePathSchema.default(""),
  /** When false, entries matched by .gitignore (and .git itself) are left out. */
  showIgnored: z.boolean().default(true),
});

export const readInputSchema = z.object({ projectId: projectIdSchema, path: workspacePathSchema });

export const writeInputSchema = z.object({
  projectId: projectIdSchema,
  path: workspacePathSchema,
  content: z.string(),
  /** The version the client last read; null means the file must not exist yet. */
  expectedVersion: z.string().nullable().optional(),
  createParents: z.boolean().default(false),
});

export const createInputSchema = z.object({
  projectId: projectIdSchema,
  path: workspacePathSchema,
  content: z.string().default(""),
  createParents: z.boolean().default(false),
});

export const mkdirInputSchema = z.object({ projectId: projectIdSchema, path: workspacePathSchema });

export const renameInputSchema = z.object({
  projectId: projectIdSchema,
  from: workspacePathSchema,
  to: workspacePathSchema,
  createParents: z.boolean().default(false),
});

export const deleteInputSchema = z.object({ projectId: projectIdSchema, path: workspacePathSchema });

export const changesInputSchema = z.object({
  projectId: projectIdSchema,
  /** Where to start: a listing's cursor (fs.tree), or the last change's id when tRPC's client reconnects. */
  lastEventId: z.string().max(64).nullish(),
});

export const filesInputSchema = z.object({ projectId: projectIdSchema });

export const writeResultSchema = z.object({ version: z.string() });
export type WriteResult = z.infer<typeof writeResultSchema>;

const CONFLICT_VERSION = /\[current version: ([0-9a-f]+|none)\]/;

/** The marker a CONFLICT error message carries, so a client can retry or show a diff. */
export function conflictVersionTag(currentVersion: string | null): string {
  return `[current version: ${currentVersion ?? "none"}]`;
}

/**
 * Reads the file's current version out of a CONFLICT error message:
 * a string, null when the file no longer exists, undefined when the message has no marker.
 */
export function currentVersionFromConflict(message: string): string | null | undefined {
  const match = CONFLICT_VERSION.exec(message);
  if (!match) return undefined;
  return match[1] === "none" ? null : match[1];
}
