import { z } from "zod";
import { defineTool } from "./define-tool";
import { asking, formatPlace, languageOf, positionOf } from "./language-access";
import { ok, ToolFailure } from "./result";

export const positionInput = z.object({
  path: z.string().min(1).optional().describe("File containing the symbol's use or definition."),
  line: z.number().int().min(1).optional().describe("1-based line of the symbol in path."),
  column: z.number().int().min(1).optional().describe("1-based column of any character of the symbol."),
  symbol: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe("Instead of a position: the symbol's name (e.g. 'area' or 'Shape.area')."),
});

const DESCRIPTION = `Goes to the definition of a symbol, through the project's language server: give the position of a use (path, line, column; as read_file numbers lines), or the symbol's name.
Definitions inside dependencies (node_modules) are listed too.`;

export const definitionTool = defineTool({
  name: "definition",
  onDemand: "always",
  kind: "search",
  description: DESCRIPTION,
  input: positionInput,
  describe: (input) =>
    input.symbol ? `Definition of ${input.symbol}` : `Definition at ${input.path}:${input.line}:${input.column}`,
  async execute(input, ctx) {
    const language = languageOf(ctx);
    const positions = await positionOf(ctx, input);
    if (input.symbol) return ok(`'${input.symbol}' is defined at:\n${positions.map(formatPlace).join("\n")}`);
    const places = await asking(() =>
      language.definition(positions[0]!.path, positions[0]!.line, positions[0]!.column),
    );
    if (places.length === 0)
      throw new ToolFailure(
        "NOT_FOUND",
        `No definition found at ${formatPlace(positions[0]!)}. Check the position points at a symbol (read_file shows line numbers).`,
      );
    return ok(`Defined at:\n${places.map(formatPlace).join("\n")}`, undefined, { count: places.length });
  },
});
