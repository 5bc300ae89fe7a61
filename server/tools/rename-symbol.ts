import { z } from "zod";
import { RenameConflict, renameSymbol } from "@/server/language/rename";
import { defineTool } from "./define-tool";
import { positionInput } from "./definition";
import { recordWrite } from "./file-state";
import { changeSummary, diffFile } from "./diff-display";
import { asking, languageOf, positionOf } from "./language-access";
import { ok, ToolFailure } from "./result";

const DESCRIPTION = `Renames a symbol everywhere it is used, through the project's language server (which knows scopes, imports and re-exports, unlike text replacement).
- Give the symbol's position (path, line, column) or its name, and new_name.
- All files change in one transaction; nothing changes if a file was modified in the meantime or has unsaved changes in an editor.`;

export const renameSymbolTool = defineTool({
  name: "rename_symbol",
  onDemand: "always",
  kind: "edit",
  description: DESCRIPTION,
  input: positionInput.extend({
    new_name: z
      .string()
      .min(1)
      .max(200)
      .regex(/^[^\s]+$/, "A name has no spaces.")
      .describe("The new name."),
  }),
  describe: (input) => `Rename ${input.symbol ?? `${input.path}:${input.line}:${input.column}`} to ${input.new_name}`,
  async execute(input, ctx) {
    const language = languageOf(ctx);
    const positions = await positionOf(ctx, input);
    if (positions.length > 1) {
      throw new ToolFailure(
        "AMBIGUOUS_MATCH",
        `'${input.symbol}' names ${positions.length} symbols (${positions.map((p) => `${p.path}:${p.line}:${p.column}`).join(", ")}). Give path, line and column instead.`,
      );
    }
    const files = await asking(async () => {
      try {
        return await renameSymbol(ctx.workspace, language, positions[0]!, input.new_name);
      } catch (error) {
        if (error instanceof RenameConflict) throw new ToolFailure("STALE_READ", error.message);
        throw error;
      }
    });
    for (const file of files) recordWrite(ctx, (await ctx.workspace.resolve(file.path)).path, file.version);
    const diffs = files.map((file) => diffFile(file.path, file.before, file.after, false));
    const summary = diffs.map((d) => `- ${d.path}: ${changeSummary(d)}`).join("\n");
    return ok(
      `Renamed to '${input.new_name}' in ${diffs.length} file${diffs.length === 1 ? "" : "s"}:\n${summary}`,
      { kind: "diff", files: diffs },
      { paths: diffs.map((d) => d.path) },
    );
  },
});
