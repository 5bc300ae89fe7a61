import { z } from "zod";
import { defineTool } from "./define-tool";
import { ToolFailure, ok } from "./result";

// markdown_table: rows (objects or arrays) rendered as a GitHub-flavoured Markdown table, for a
// report or a file the agent writes next; people see it as a table.

const MAX_ROWS = 1_000;
const MAX_COLUMNS = 50;
const cell = z.union([z.string(), z.number(), z.boolean(), z.null()]);

const DESCRIPTION = `Renders rows as a Markdown table and returns its text.
- rows: objects ({"name": "a", "size": 3}) or arrays (["a", 3]); at most ${MAX_ROWS}.
- columns: the header, and for objects which keys and in what order (default: the keys of the rows, first seen first). Needed for arrays.
- align: "left", "right" or "center" per column (default left).
Pipes and line breaks in cells are escaped.`;

export const markdownTableTool = defineTool({
  name: "markdown_table",
  onDemand: "always",
  kind: "think",
  description: DESCRIPTION,
  input: z.object({
    rows: z
      .array(z.union([z.record(z.string(), cell), z.array(cell)]))
      .min(1)
      .max(MAX_ROWS),
    columns: z.array(z.string().min(1).max(200)).min(1).max(MAX_COLUMNS).optional(),
    align: z
      .array(z.enum(["left", "right", "center"]))
      .max(MAX_COLUMNS)
      .optional(),
  }),
  describe: (i) => `Make a table of ${i.rows.length} row${i.rows.length === 1 ? "" : "s"}`,
  async execute(input) {
    const objects = input.rows.every((row) => !Array.isArray(row));
    if (!objects && !input.rows.every((row) => Array.isArray(row)))
      throw new ToolFailure("INVALID_INPUT", "rows must be all objects or all arrays, not a mix.");
    const columns =
      input.columns ?? (objects ? [...new Set(input.rows.flatMap((row) => Object.keys(row)))] : undefined);
    if (!columns) throw new ToolFailure("INVALID_INPUT", "rows given as arrays need columns: the header's names.");
    if (columns.length > MAX_COLUMNS)
      throw new ToolFailure("INVALID_INPUT", `At most ${MAX_COLUMNS} columns; pass columns to choose them.`);
    const rows = input.rows.map((row) =>
      columns.map((column, i) => show(Array.isArray(row) ? row[i] : (row as Record<string, unknown>)[column])),
    );
    const rule = columns.map((_, i) => {
      const how = input.align?.[i] ?? "left";
      return how === "right" ? "---:" : how === "center" ? ":---:" : "---";
    });
    const line = (cells: string[]) => `| ${cells.join(" | ")} |`;
    const text = [line(columns.map(escapeCell)), line(rule), ...rows.map((cells) => line(cells.map(escapeCell)))].join(
      "\n",
    );
    return ok(text, { kind: "table", columns, rows }, { rows: rows.length, columns: columns.length });
  },
});

const show = (value: unknown) => (value === undefined || value === null ? "" : String(value));
const escapeCell = (text: string) => text.replace(/\\/g, "\\\\").replace(/\|/g, "\\|").replace(/\r?\n/g, "<br>");
