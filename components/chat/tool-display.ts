import { z } from "zod";

// What a tool shaped for people to see (`tool_result.display`, typed `unknown` in the event log).
// Parsed here, at the edge of the UI, against the shapes the tools produce
// (server/tools/define-tool.ts, ToolDisplay); anything else is shown as the tool's text.

const diffFile = z.object({
  path: z.string(),
  diff: z.string(),
  added: z.number(),
  removed: z.number(),
  created: z.boolean(),
});
export type DiffFile = z.infer<typeof diffFile>;
/** An error the change introduced, as the language servers reported it (server/language/project-language.ts, Problem). */
const problem = z.object({
  path: z.string(),
  line: z.number(),
  column: z.number(),
  severity: z.string(),
  message: z.string(),
  code: z.union([z.string(), z.number()]).optional(),
});
export type NewProblem = z.infer<typeof problem>;

export const toolDisplaySchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("text"), text: z.string() }),
  z.object({ kind: z.literal("markdown"), text: z.string() }),
  z.object({ kind: z.literal("diff"), files: z.array(diffFile), problems: z.array(problem).optional() }),
  z.object({
    kind: z.literal("table"),
    columns: z.array(z.string()),
    rows: z.array(z.array(z.string())),
    footer: z.string().optional(),
  }),
  z.object({
    kind: z.literal("terminal"),
    command: z.string(),
    output: z.string(),
    exitCode: z.number().nullable(),
    outputPath: z.string().optional(),
    background: z.string().optional(),
  }),
  z.object({ kind: z.literal("image"), path: z.string(), mediaType: z.string(), size: z.number() }),
  z.object({ kind: z.literal("json"), value: z.unknown() }),
  z.object({ kind: z.literal("error"), code: z.string(), message: z.string() }),
]);
export type ToolDisplay = z.infer<typeof toolDisplaySchema>;

export function parseDisplay(display: unknown): ToolDisplay | null {
  return toolDisplaySchema.safeParse(display).data ?? null;
}

// Inputs of the tools whose approval cards show what will happen.
export const editInputSchema = z.object({
  path: z.string(),
  old_string: z.string(),
  new_string: z.string(),
  replace_all: z.boolean().optional(),
});
export const writeInputSchema = z.object({ path: z.string(), content: z.string() });
export const multiEditInputSchema = z.object({ edits: z.array(editInputSchema).min(1) });
export const shellInputSchema = z.object({
  command: z.string(),
  description: z.string().optional(),
  run_in_background: z.boolean().optional(),
  timeout: z.number().optional(),
});
const grepInputSchema = z.object({ pattern: z.string(), path: z.string().optional(), glob: z.string().optional() });

/**
 * What a call's card is titled. A search's title is made here from its input, so its pattern reads
 * exactly as the model sent it (the logged title quotes it JSON-escaped: `add\\(` for `add\(`).
 */
export function toolTitle(item: { toolName: string; title: string; input: unknown }): string {
  const grep = item.toolName === "grep" ? grepInputSchema.safeParse(item.input).data : undefined;
  if (!grep) return item.title;
  return `Search for “${grep.pattern}”${grep.path ? ` in ${grep.path}` : ""}${grep.glob ? ` (${grep.glob})` : ""}`;
}

export const fetchInputSchema = z.object({ url: z.string(), prompt: z.string().optional() });
export type EditInput = z.infer<typeof editInputSchema>;

/** The files a call would change, with the edits for each (edit, multi_edit, write_file). */
export type PlannedChange = { path: string; edits: EditInput[] } | { path: string; content: string };

export function plannedChanges(toolName: string, input: unknown): PlannedChange[] | null {
  if (toolName === "write_file") {
    const parsed = writeInputSchema.safeParse(input).data;
    return parsed ? [{ path: parsed.path, content: parsed.content }] : null;
  }
  if (toolName === "edit") {
    const parsed = editInputSchema.safeParse(input).data;
    return parsed ? [{ path: parsed.path, edits: [parsed] }] : null;
  }
  if (toolName === "multi_edit") {
    const parsed = multiEditInputSchema.safeParse(input).data;
    if (!parsed) return null;
    const byPath = new Map<string, EditInput[]>();
    for (const edit of parsed.edits) byPath.set(edit.path, [...(byPath.get(edit.path) ?? []), edit]);
    return [...byPath].map(([path, edits]) => ({ path, edits }));
  }
  return null;
}

/** The file after the edits, applied as the edit tool does for exact matches; null when one does not match. */
export function applyEdits(before: string, edits: EditInput[]): string | null {
  let text = before;
  for (const edit of edits) {
    if (edit.old_string === "") {
      if (text !== "") return null;
      text = edit.new_string;
      continue;
    }
    const at = text.indexOf(edit.old_string);
    if (at === -1) return null;
    text = edit.replace_all
      ? text.split(edit.old_string).join(edit.new_string)
      : text.slice(0, at) + edit.new_string + text.slice(at + edit.old_string.length);
  }
  return text;
}

/** Paths as the editor names them: tools may be given "./src/a.ts" for "src/a.ts". */
export function relativePath(path: string): string {
  return path.replace(/^\.\//, "");
}
