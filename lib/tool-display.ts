import { z } from "zod";

// What a tool call shows people, shared by the tools that produce it (server/tools) and the
// transcript that renders it (components/chat). `tool_result.display` is typed `unknown` in the
// event log: the browser parses it here, and shows the tool's text for anything else.

/** What a tool does; the approval policy, the scheduler and the transcript's cards decide by kind. */
export const TOOL_KINDS = ["read", "search", "edit", "execute", "fetch", "memory", "think", "agent"] as const;
export type ToolKind = (typeof TOOL_KINDS)[number];

/** Errors the model can act on; each comes with a message that says what to do next. */
export const TOOL_ERROR_CODES = [
  "INVALID_INPUT",
  "NOT_FOUND",
  "NO_MATCH",
  "AMBIGUOUS_MATCH",
  "OUTSIDE_WORKSPACE",
  "INVALID_PATH",
  "STALE_READ",
  "INVALID_REGEX",
  "TIMEOUT",
  "TOO_LARGE",
  "BLOCKED_ADDRESS",
  "NETWORK_POLICY",
  "IS_DIRECTORY",
  "NOT_A_DIRECTORY",
  "NOT_A_FILE",
  "EXISTS",
  "BINARY_FILE",
  "READ_ONLY",
  "FETCH_FAILED",
  "ABORTED",
  "UNAVAILABLE",
  "DISK_FULL",
  "TOOL_NOT_FOUND",
  "DENIED",
  "INTERNAL",
] as const;
export type ToolErrorCode = (typeof TOOL_ERROR_CODES)[number];

const diffFileSchema = z.object({
  path: z.string(),
  /** Unified diff of the change (what the review UI renders). */
  diff: z.string(),
  added: z.number(),
  removed: z.number(),
  created: z.boolean(),
});
export type DiffFile = z.infer<typeof diffFileSchema>;

/** An error a change introduced, as the language servers reported it (server/language/project-language.ts). */
const newProblemSchema = z.object({
  path: z.string(),
  line: z.number(),
  column: z.number(),
  severity: z.string(),
  message: z.string(),
  code: z.union([z.string(), z.number()]).optional(),
});
export type NewProblem = z.infer<typeof newProblemSchema>;

const toolDisplaySchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("text"), text: z.string() }),
  z.object({ kind: z.literal("markdown"), text: z.string() }),
  z.object({ kind: z.literal("diff"), files: z.array(diffFileSchema), problems: z.array(newProblemSchema).optional() }),
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
  /** A structured result (an MCP tool's structured content, sub-agents' JSON reports), shown as JSON. */
  z.object({ kind: z.literal("json"), value: z.unknown() }),
  // Any string: a log may hold a code this version no longer has.
  z.object({ kind: z.literal("error"), code: z.string(), message: z.string() }),
]);

/** What people see in the transcript for one call, as a tool makes it: never sent to the model. */
export type ToolDisplay =
  | Exclude<z.infer<typeof toolDisplaySchema>, { kind: "error" }>
  | { kind: "error"; code: ToolErrorCode; message: string };

/** A logged display in a shape the transcript knows, else null. */
export function parseDisplay(display: unknown): z.infer<typeof toolDisplaySchema> | null {
  return toolDisplaySchema.safeParse(display).data ?? null;
}
