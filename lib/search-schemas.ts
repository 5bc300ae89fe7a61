import { z } from "zod";
import { workspacePathSchema } from "@/lib/fs-schemas";

// Find and replace in files (the Search panel): what the browser asks and what the server streams back.

/** Globs as typed in the panel: comma-separated, e.g. "src/**, *.ts". */
const globListSchema = z
  .string()
  .max(2000)
  .transform((text) =>
    text
      .split(",")
      .map((glob) => glob.trim())
      .filter(Boolean),
  );

export const findQuerySchema = z.object({
  pattern: z.string().min(1, "Type something to search for").max(2000),
  isRegex: z.boolean().default(false),
  matchCase: z.boolean().default(false),
  wholeWord: z.boolean().default(false),
  include: globListSchema.default([]),
  exclude: globListSchema.default([]),
  /** Also search files that .gitignore leaves out (node_modules, build output); `.git` never. */
  includeIgnored: z.boolean().default(false),
});
export type FindQueryInput = z.input<typeof findQuerySchema>;
export type FindQuery = z.output<typeof findQuerySchema>;

/** One match: where it starts (1-based line, 1-based UTF-16 column in the line) and its text. */
export const matchRefSchema = z.object({
  line: z.number().int().min(1),
  column: z.number().int().min(1),
  text: z.string().max(100_000),
});
export type MatchRef = z.infer<typeof matchRefSchema>;

/** A line with matches, as the results list shows it: a preview cut around the matches. */
export type LineMatch = {
  line: number;
  /** The line's text, cut to a window around its first match when it is long. */
  preview: string;
  /** UTF-16 column (0-based) of the preview's first character in the full line. */
  previewStart: number;
  /** Each match: its ref (for opening and replacing) and its range inside `preview`, clipped. */
  matches: { ref: MatchRef; start: number; end: number }[];
};

export type FileMatches = { path: string; lines: LineMatch[] };

export type FindEvent =
  | { type: "files"; files: FileMatches[] }
  | { type: "done"; files: number; matches: number; limitHit: boolean; ms: number }
  | { type: "error"; message: string };

export const replaceInputSchema = z.object({
  query: findQuerySchema,
  replacement: z.string().max(100_000),
  /** Files to change, each with the matches the person kept (the others were excluded). */
  files: z
    .array(z.object({ path: workspacePathSchema.min(1), matches: z.array(matchRefSchema).min(1).max(100_000) }))
    .min(1)
    .max(10_000),
});
export type ReplaceInput = z.input<typeof replaceInputSchema>;

export const previewReplaceInputSchema = z.object({
  query: findQuerySchema,
  replacement: z.string().max(100_000),
  path: workspacePathSchema.min(1),
  matches: z.array(matchRefSchema).max(100_000),
});

export type ReplaceFileResult =
  | { path: string; ok: true; replaced: number }
  | { path: string; ok: false; code: "CONFLICT" | "NOT_TEXT" | "READ_ONLY" | "FAILED"; message: string };
