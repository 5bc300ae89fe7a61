import { z } from "zod";
import { defineTool } from "./define-tool";
import { asking, formatSymbol, languageOf, workspacePath } from "./language-access";
import { ok } from "./result";
import { ToolFailure } from "./result";

const MAX_SYMBOLS = 100;

const DESCRIPTION = `Finds definitions through the project's language servers: classes, functions, methods, variables..., with kind and location.
- query: symbols across the workspace whose name matches (fuzzy), e.g. "UserService".
- path: the outline of one file.
Give exactly one of them.`;

export const symbolsTool = defineTool({
  name: "symbols",
  onDemand: "always",
  kind: "search",
  description: DESCRIPTION,
  input: z
    .object({
      query: z.string().min(1).max(200).optional().describe("Name (or part of it) to look for across the workspace."),
      path: z.string().min(1).optional().describe("A file whose symbols to list."),
    })
    .refine((input) => (input.query === undefined) !== (input.path === undefined), {
      message: "Give exactly one of query and path.",
    }),
  describe: (input) => (input.path ? `Symbols of ${input.path}` : `Symbols matching '${input.query}'`),
  async execute(input, ctx) {
    const language = languageOf(ctx);
    const symbols = input.path
      ? await asking(async () => language.documentSymbols(await workspacePath(ctx, input.path!)))
      : await asking(() => language.workspaceSymbols(input.query!));
    if (symbols.length === 0) {
      if (input.query)
        throw new ToolFailure("NO_MATCH", `No symbols match '${input.query}'. Try a shorter name, or grep.`);
      return ok(`${input.path} defines no symbols.`);
    }
    const shown = symbols.slice(0, MAX_SYMBOLS);
    const more = symbols.length > shown.length ? `\n(${symbols.length - shown.length} more; narrow the query)` : "";
    return ok(`${symbols.length} symbols:\n${shown.map(formatSymbol).join("\n")}${more}`, undefined, {
      count: symbols.length,
    });
  },
});
