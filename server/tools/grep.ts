import { z } from "zod";
import { defineTool } from "./define-tool";
import { ToolFailure, ok } from "./result";
import { RG_BASE_ARGS, runRipgrep } from "@/server/workspace/ripgrep";

export const GREP_DEFAULT_LIMIT = 250;

const DESCRIPTION = `Searches file contents with ripgrep (Rust regex syntax; escape literal braces and dots: "interface\\{\\}", "a\\.b").
- output_mode: "files_with_matches" (default: paths only), "content" (matching lines, with -n line numbers, -A/-B/-C context), "count" (matches per file).
- Filter files with glob ("*.ts", "**/*.{ts,tsx}") or type ("js", "py", "rust"; faster than glob).
- Files ignored by .gitignore are not searched. Output stops after head_limit lines (default ${GREP_DEFAULT_LIMIT}).
- multiline: let patterns span lines ("." matches newlines too).`;

export const grepTool = defineTool({
  name: "grep",
  kind: "search",
  description: DESCRIPTION,
  input: z.object({
    pattern: z.string().min(1).describe("Regular expression to search for."),
    path: z
      .string()
      .optional()
      .describe("File or folder to search, relative to the workspace root (default: the root)."),
    glob: z.string().optional().describe('Only files matching this glob, e.g. "*.ts" or "src/**/*.tsx".'),
    type: z
      .string()
      .regex(/^[A-Za-z0-9_+-]+$/, "must be a ripgrep file type such as js, py or rust")
      .optional()
      .describe("Only files of this ripgrep type."),
    output_mode: z
      .enum(["content", "files_with_matches", "count"])
      .optional()
      .describe('Default "files_with_matches".'),
    "-i": z.boolean().optional().describe("Case-insensitive."),
    "-n": z.boolean().optional().describe("Line numbers in content mode (default true)."),
    "-A": z.number().int().min(0).max(100).optional().describe("Lines of context after each match (content mode)."),
    "-B": z.number().int().min(0).max(100).optional().describe("Lines of context before each match (content mode)."),
    "-C": z.number().int().min(0).max(100).optional().describe("Lines of context around each match (content mode)."),
    head_limit: z
      .number()
      .int()
      .min(1)
      .max(10_000)
      .optional()
      .describe(`Stop after this many output lines (default ${GREP_DEFAULT_LIMIT}).`),
    multiline: z.boolean().optional().describe("Patterns may span lines."),
  }),
  describe: (input) =>
    `Search for ${JSON.stringify(input.pattern)}${input.path ? ` in ${input.path}` : ""}${input.glob ? ` (${input.glob})` : ""}`,
  async execute(input, ctx) {
    const target = await ctx.workspace.resolve(input.path ?? "");
    // Through the workspace: a FIFO named here is refused (rg would wait on it forever).
    await ctx.workspace.stat(target.requested).catch((error: unknown) => {
      if (error instanceof Error && "code" in error && error.code === "NOT_FOUND") {
        throw new ToolFailure("NOT_FOUND", `'${target.requested}' does not exist. Check the path with ls or glob.`);
      }
      throw error;
    });
    const mode = input.output_mode ?? "files_with_matches";
    const args = [...RG_BASE_ARGS, "--no-messages"];
    if (mode === "files_with_matches") args.push("--files-with-matches");
    else if (mode === "count") args.push("--count", "--with-filename");
    else {
      args.push("--no-heading", "--with-filename", "--max-columns", "500", "--max-columns-preview");
      if (input["-n"] !== false) args.push("--line-number");
      if (input["-C"] !== undefined) args.push("--context", String(input["-C"]));
      if (input["-A"] !== undefined) args.push("--after-context", String(input["-A"]));
      if (input["-B"] !== undefined) args.push("--before-context", String(input["-B"]));
    }
    if (input["-i"]) args.push("--ignore-case");
    if (input.multiline) args.push("--multiline", "--multiline-dotall");
    if (input.glob) args.push("--glob", input.glob);
    if (input.type) args.push("--type", input.type);
    args.push("--regexp", input.pattern, "--", target.requested === "" ? "." : target.requested);
    const limit = input.head_limit ?? GREP_DEFAULT_LIMIT;
    const rg = await runRipgrep(args, { root: ctx.workspace.root, signal: ctx.signal, maxLines: limit });
    if (rg.exitCode === 2 && !rg.stopped && rg.lines.length === 0) {
      const why = rg.stderr.trim();
      if (/regex parse error|error parsing regex|unclosed|unrecognized escape/i.test(why)) {
        throw new ToolFailure(
          "INVALID_REGEX",
          `The pattern is not a valid regular expression:\n${why}\nFix it (escape special characters such as ( [ { . with a backslash) and retry.`,
        );
      }
      if (/unrecognized file type/i.test(why))
        throw new ToolFailure(
          "INVALID_INPUT",
          `type: ${why}. Use a ripgrep type such as js, ts, py, rust, go, or use glob instead.`,
        );
      throw new ToolFailure("INVALID_INPUT", `ripgrep refused the search: ${why}`);
    }
    const lines = rg.lines.map((line) => line.replace(/^\.\//, ""));
    if (mode !== "content") lines.sort();
    if (lines.length === 0) {
      return ok(
        `No matches for ${JSON.stringify(input.pattern)}${target.requested ? ` in '${target.requested}'` : ""}.`,
        undefined,
        { matches: 0 },
      );
    }
    const note = rg.stopped
      ? `\n[Stopped after ${limit} lines; there are more. Narrow the search (path, glob, type, a more specific pattern) or raise head_limit.]`
      : "";
    const text = lines.join("\n");
    return ok(`${text}${note}`, { kind: "text", text: `${text}${note}` }, { lines: lines.length, more: rg.stopped });
  },
});
