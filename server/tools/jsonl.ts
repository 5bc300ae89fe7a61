import { z } from "zod";
import { defineTool } from "./define-tool";
import { loadFile } from "./file-state";
import { ToolFailure, ok } from "./result";

// jsonl: a JSON Lines file read as records: filtered by field conditions (all must hold), counted,
// or listed with their line numbers, optionally only some fields of each.

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1_000;
/** A field path: names joined by dots, with [n] for array items ("user.roles[0]"). */
const FIELD = /^[A-Za-z_$@][\w$@-]*(?:\.[A-Za-z_$@][\w$@-]*|\[\d+\])*$/;

const scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);
const condition = z.object({
  field: z.string().regex(FIELD, 'a field path such as "level", "user.name" or "tags[0]"'),
  op: z
    .enum(["==", "!=", ">", ">=", "<", "<=", "contains", "exists", "missing"])
    .describe('"contains": a substring of a string, or an item of an array; "exists"/"missing" take no value.'),
  value: scalar.optional(),
});
type Condition = z.infer<typeof condition>;

const DESCRIPTION = `Reads a JSON Lines file (one JSON value per line: .jsonl, .ndjson, logs) as records.
- filter: conditions on fields, all of which must hold, e.g. [{"field": "level", "op": "==", "value": "error"}, {"field": "ms", "op": ">", "value": 500}].
- count: true returns only how many records match (and how many lines are not JSON).
- fields: only these fields of each record. offset/limit page through the matches (default ${DEFAULT_LIMIT}, at most ${MAX_LIMIT}).
Each record comes back as "<line number>: <JSON>".`;

export const jsonlTool = defineTool({
  name: "jsonl",
  onDemand: "always",
  kind: "read",
  description: DESCRIPTION,
  input: z.object({
    path: z.string().min(1).describe("The JSON Lines file, relative to the workspace root."),
    filter: z.array(condition).max(20).optional(),
    count: z.boolean().optional(),
    fields: z.array(z.string().regex(FIELD, "a field path")).max(50).optional(),
    offset: z.number().int().min(0).optional().describe("Matches to skip (default 0)."),
    limit: z.number().int().min(1).max(MAX_LIMIT).optional(),
  }),
  describe: (i) => `${i.count ? "Count" : "Read"} records of ${i.path}${i.filter?.length ? " (filtered)" : ""}`,
  async execute(input, ctx) {
    for (const c of input.filter ?? []) {
      const takesValue = c.op !== "exists" && c.op !== "missing";
      if (takesValue !== (c.value !== undefined))
        throw new ToolFailure(
          "INVALID_INPUT",
          takesValue ? `"${c.op}" on ${c.field} needs a value.` : `"${c.op}" on ${c.field} takes no value.`,
        );
    }
    const file = await loadFile(ctx, input.path);
    const label = file.resolved.requested;
    if (file.decoded.kind === "binary")
      throw new ToolFailure("BINARY_FILE", `'${label}' is a binary file, not JSON Lines.`);
    const lines = file.decoded.content.split(/\r?\n/);
    const malformed: number[] = [];
    const matches: { line: number; value: unknown }[] = [];
    let records = 0;
    lines.forEach((text, n) => {
      if (!text.trim()) return;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        malformed.push(n + 1);
        return;
      }
      records += 1;
      if ((input.filter ?? []).every((c) => holds(c, value))) matches.push({ line: n + 1, value });
    });
    const bad = malformed.length
      ? ` ${malformed.length} line(s) are not JSON (line ${malformed.slice(0, 5).join(", ")}${malformed.length > 5 ? ", …" : ""}).`
      : "";
    const summary = `${matches.length} of ${records} records in '${label}' match.${bad}`;
    const meta = { path: label, records, matches: matches.length, malformed: malformed.length };
    if (input.count) return ok(summary, { kind: "text", text: summary }, meta);
    const offset = input.offset ?? 0;
    const page = matches.slice(offset, offset + (input.limit ?? DEFAULT_LIMIT));
    const body = page
      .map((m) => `${m.line}: ${JSON.stringify(input.fields ? pick(m.value, input.fields) : m.value)}`)
      .join("\n");
    const more =
      offset + page.length < matches.length
        ? `\n[Showing matches ${offset + 1}-${offset + page.length}; call again with offset=${offset + page.length} for more.]`
        : "";
    const text = `${summary}\n${body}${more}`;
    return ok(text, { kind: "text", text }, meta);
  },
});

/** The value at a field path, or undefined when any step is missing. */
function at(value: unknown, field: string): unknown {
  let current = value;
  for (const step of field.match(/[^.[\]]+|\[\d+\]/g) ?? []) {
    if (current === null || typeof current !== "object") return undefined;
    const key = step.startsWith("[") ? Number(step.slice(1, -1)) : step;
    if (!Object.hasOwn(current, key)) return undefined;
    current = (current as Record<string | number, unknown>)[key];
  }
  return current;
}

function holds(c: Condition, record: unknown): boolean {
  const found = at(record, c.field);
  switch (c.op) {
    case "exists":
      return found !== undefined;
    case "missing":
      return found === undefined;
    case "==":
      return found === c.value;
    case "!=":
      return found !== c.value;
    case "contains":
      if (typeof found === "string") return typeof c.value === "string" && found.includes(c.value);
      return Array.isArray(found) && found.some((item) => item === c.value);
    default: {
      const comparable =
        (typeof found === "number" && typeof c.value === "number") ||
        (typeof found === "string" && typeof c.value === "string");
      if (!comparable) return false;
      const [a, b] = [found as number | string, c.value as number | string];
      return c.op === ">" ? a > b : c.op === ">=" ? a >= b : c.op === "<" ? a < b : a <= b;
    }
  }
}

function pick(record: unknown, fields: string[]): Record<string, unknown> {
  return Object.fromEntries(fields.map((field) => [field, at(record, field) ?? null]));
}
