import { GREP_DEFAULT_LIMIT, grepCall } from "@/lib/tool-call-shapes";
import { defineTool } from "./define-tool";
import { ToolFailure, ok } from "./result";
import { RG_BASE_ARGS, runRipgrep } from "@/server/workspace/ripgrep";

const DESCRIPTION = `Searches file contents with ripgrep (Rust regex syntax; escape literal braces and dots: "interface\\{\\}", "a\\.b").
- output_mode: "files_with_matches" (default: paths only), "content" (matching lines, with -n line numbers, -A/-B/-C context), "count" (matches per file).
- Filter files with glob ("*.ts", "**/*.{ts,tsx}") or type ("js", "py", "rust"; faster than glob).
- Files ignored by .gitignore are not searched. Output stops after head_limit lines (default ${GREP_DEFAULT_LIMIT}).
- multiline: let patterns span lines ("." matches newlines too).`;

export const grepTool = defineTool({
  ...grepCall,
  description: DESCRIPTION,
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
