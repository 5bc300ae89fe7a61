import { describe, expect, it } from "vitest";
import { z } from "zod";
import { buildToolSet } from "./registry";
import { inputJsonSchema, sanitizeSchema } from "./schema";

function keysDeep(node: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(node)) node.forEach((n) => keysDeep(n, found));
  else if (node && typeof node === "object") {
    for (const [k, v] of Object.entries(node)) {
      found.add(k);
      keysDeep(v, found);
    }
  }
  return found;
}

describe("tool schemas per provider", () => {
  it("every core tool has an object schema Google accepts", () => {
    for (const tool of Object.values(buildToolSet({ webSearch: { kind: "searxng", url: "http://x" } }))) {
      const schema = inputJsonSchema(tool, "google");
      expect(schema.type).toBe("object");
      const keys = keysDeep(schema);
      for (const bad of ["$schema", "additionalProperties", "$ref", "const", "exclusiveMinimum"])
        expect(keys.has(bad), `${tool.name}: ${bad}`).toBe(false);
    }
    const anthropic = inputJsonSchema(buildToolSet().edit!, "anthropic");
    expect(anthropic.$schema).toBeUndefined();
    expect((anthropic.properties as Record<string, unknown>).old_string).toBeDefined();
  });

  it("strips unsupported formats, default beside anyOf, and flattens nullable types", () => {
    const schema = sanitizeSchema(
      {
        $schema: "http://json-schema.org/draft-07/schema#",
        type: "object",
        additionalProperties: false,
        properties: {
          url: { type: "string", format: "uri" },
          when: { type: "string", format: "date-time" },
          mode: { anyOf: [{ type: "string" }, { type: "number" }], default: "a" },
          maybe: { type: ["string", "null"] },
          fixed: { const: "x" },
        },
      },
      "google",
    );
    expect(schema).toEqual({
      type: "object",
      properties: {
        url: { type: "string" },
        when: { type: "string", format: "date-time" },
        mode: { anyOf: [{ type: "string" }, { type: "number" }] },
        maybe: { type: "string", nullable: true },
        fixed: { enum: ["x"], type: "string" },
      },
    });
  });

  it("inlines references and cuts a recursive schema", () => {
    interface Node {
      name: string;
      children: Node[];
    }
    const node: z.ZodType<Node> = z.lazy(() => z.object({ name: z.string(), children: z.array(node) }));
    const schema = inputJsonSchema({ input: z.object({ root: node }) }, "google");
    const root = (schema.properties as Record<string, Record<string, unknown>>).root!;
    expect(root.type).toBe("object");
    const children = (root.properties as Record<string, Record<string, unknown>>).children!;
    expect(children.type).toBe("array");
    expect((children.items as Record<string, unknown>).type).toBe("object");
    expect(JSON.stringify(schema)).not.toContain("$ref");
  });
});
