import { defineTool } from "./define-tool";
import { positionInput } from "./definition";
import { asking, formatPlace, languageOf, positionOf } from "./language-access";
import { ok, ToolFailure } from "./result";

const MAX_REFERENCES = 200;

const DESCRIPTION = `Finds every reference to a symbol across the workspace (its definition included), through the project's language server: give a position (path, line, column) or the symbol's name.`;

export const referencesTool = defineTool({
  name: "references",
  onDemand: "always",
  kind: "search",
  description: DESCRIPTION,
  input: positionInput,
  describe: (input) =>
    input.symbol ? `References to ${input.symbol}` : `References at ${input.path}:${input.line}:${input.column}`,
  async execute(input, ctx) {
    const language = languageOf(ctx);
    const positions = (await positionOf(ctx, input)).slice(0, 3);
    const seen = new Set<string>();
    const places = [];
    for (const position of positions) {
      for (const place of await asking(() => language.references(position.path, position.line, position.column))) {
        if (seen.has(formatPlace(place))) continue;
        seen.add(formatPlace(place));
        places.push(place);
      }
    }
    if (places.length === 0)
      throw new ToolFailure(
        "NOT_FOUND",
        "No references found. Check the position points at a symbol (read_file shows line numbers).",
      );
    const shown = places.slice(0, MAX_REFERENCES);
    const files = new Set(places.map((p) => p.path)).size;
    const more = places.length > shown.length ? `\n(${places.length - shown.length} more)` : "";
    return ok(
      `${places.length} references in ${files} file${files === 1 ? "" : "s"}:\n${shown.map(formatPlace).join("\n")}${more}`,
      undefined,
      { count: places.length },
    );
  },
});
