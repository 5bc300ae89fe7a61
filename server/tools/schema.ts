import { z } from "zod";
import type { SchemaDialect } from "@/lib/model-providers";
import type { Tool } from "./define-tool";

export type JsonSchema = { [key: string]: unknown };

// What Gemini's function declarations accept (an OpenAPI 3.0 subset); anything else is rejected.
const GOOGLE_KEYS = new Set([
  "type",
  "format",
  "description",
  "nullable",
  "enum",
  "items",
  "properties",
  "required",
  "anyOf",
  "minItems",
  "maxItems",
  "minimum",
  "maximum",
  "minLength",
  "maxLength",
  "pattern",
  "title",
  "default",
  "minProperties",
  "maxProperties",
  "propertyOrdering",
]);
const GOOGLE_FORMATS: Record<string, Set<string>> = {
  string: new Set(["enum", "date-time"]),
  integer: new Set(["int32", "int64"]),
  number: new Set(["float", "double"]),
};

/** The JSON schema of a tool's input, as this provider accepts it. */
export function inputJsonSchema(tool: Pick<Tool, "input" | "inputSchema">, dialect: SchemaDialect): JsonSchema {
  const schema = tool.inputSchema
    ? objectSchema(tool.inputSchema)
    : (z.toJSONSchema(tool.input, { target: "draft-07", io: "input", unrepresentable: "any" }) as JsonSchema);
  return sanitizeSchema(schema, dialect);
}

/** An external tool's schema (MCP, discovered) as every provider wants the top: an object with properties. */
function objectSchema(schema: JsonSchema): JsonSchema {
  if (schema.type !== "object") return { type: "object", properties: {}, additionalProperties: true };
  return { ...schema, properties: schema.properties ?? {} };
}

/**
 * Makes a JSON schema acceptable to a provider. For all: no `$schema`. For Google: references
 * inlined (a recursive one is cut to a plain object at its second appearance), `const` as `enum`,
 * type arrays as `nullable`/`anyOf`, unsupported `format` values and keywords dropped, and no
 * `default` beside `anyOf`.
 */
export function sanitizeSchema(schema: JsonSchema, dialect: SchemaDialect): JsonSchema {
  const { $schema: _drop, ...rest } = schema;
  if (dialect !== "google") return rest;
  const defs = {
    ...(schema.definitions as Record<string, JsonSchema> | undefined),
    ...(schema.$defs as Record<string, JsonSchema> | undefined),
  };
  return forGoogle(rest, defs, []);
}

function forGoogle(node: JsonSchema, defs: Record<string, JsonSchema>, seen: readonly string[]): JsonSchema {
  if (typeof node.$ref === "string") {
    const name = node.$ref.replace(/^#\/(definitions|\$defs)\//, "");
    const target = defs[name];
    if (!target || seen.includes(name)) {
      return {
        type: "object",
        description: [node.description, "(recursive: same shape as its parent)"].filter(Boolean).join(" "),
      };
    }
    return forGoogle({ ...target, ...(node.description ? { description: node.description } : {}) }, defs, [
      ...seen,
      name,
    ]);
  }
  let source: JsonSchema = { ...node };
  if ("const" in source) source = { ...source, enum: [source.const] };
  if (Array.isArray(source.type)) {
    const types = (source.type as string[]).filter((t) => t !== "null");
    const nullable = types.length < (source.type as string[]).length;
    source =
      types.length === 1
        ? { ...source, type: types[0] }
        : { ...source, type: undefined, anyOf: types.map((t) => ({ type: t })) };
    if (nullable) source.nullable = true;
  }
  if (Array.isArray(source.oneOf)) source = { ...source, anyOf: source.oneOf };
  if (Array.isArray(source.anyOf)) {
    const branches = (source.anyOf as JsonSchema[]).filter((b) => b.type !== "null");
    if (branches.length < (source.anyOf as JsonSchema[]).length) source.nullable = true;
    source.anyOf = branches;
    if (branches.length === 1) {
      const { anyOf: _a, ...others } = source;
      source = { ...branches[0], ...others };
    }
  }
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(source)) {
    if (!GOOGLE_KEYS.has(key) || value === undefined) continue;
    if (key === "properties") {
      out.properties = Object.fromEntries(
        Object.entries(value as Record<string, JsonSchema>).map(([k, v]) => [k, forGoogle(v, defs, seen)]),
      );
    } else if (key === "items") {
      out.items = Array.isArray(value)
        ? forGoogle((value[0] as JsonSchema) ?? {}, defs, seen)
        : forGoogle(value as JsonSchema, defs, seen);
    } else if (key === "anyOf") {
      out.anyOf = (value as JsonSchema[]).map((b) => forGoogle(b, defs, seen));
    } else if (key === "format") {
      if (GOOGLE_FORMATS[String(source.type)]?.has(String(value))) out.format = value;
    } else if (key === "enum") {
      out.enum = (value as unknown[]).map(String);
      if (!out.type) out.type = "string";
    } else {
      out[key] = value;
    }
  }
  if (out.anyOf) delete out.default;
  return out;
}
