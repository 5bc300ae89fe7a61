import { z } from "zod";
import { defineTool, type Tool } from "./define-tool";
import { ok } from "./result";
import { inputJsonSchema } from "./schema";

// tool_search: when a project brings many tools (MCP servers, discovered tools), the model first
// sees only their names; this tool finds tools by words in their names and descriptions
// (case-insensitive) and loads their schemas, so later steps can call them.

export const MAX_MATCHES = 8;

/** Tools ranked by how many query words their name (counted twice) and description contain. */
export function matchTools(tools: readonly Tool[], query: string, limit = MAX_MATCHES): Tool[] {
  const words = query.toLowerCase().split(/[\s,]+/).filter(Boolean);
  if (!words.length) return [];
  const scored = tools.map((tool) => {
    const name = tool.name.toLowerCase();
    const description = tool.description.toLowerCase();
    const score = words.reduce((sum, w) => sum + (name === w ? 10 : 0) + (name.includes(w) ? 2 : 0) + (description.includes(w) ? 1 : 0), 0);
    return { tool, score };
  });
  return scored
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || a.tool.name.localeCompare(b.tool.name))
    .slice(0, limit)
    .map((s) => s.tool);
}

export function toolSearchTool(deferred: readonly Tool[]) {
  const names = deferred.map((t) => t.name).join(", ");
  return defineTool({
    name: "tool_search",
    kind: "think",
    description:
      "Find and load tools whose schemas are not loaded yet. Search by words from the tool's name or purpose (case-insensitive); " +
      `the matching tools' descriptions and input schemas come back (at most ${MAX_MATCHES}) and you can call them from then on. ` +
      `Tools available this way: ${names}.`,
    input: z.object({ query: z.string().min(1).max(200).describe("Words to look for in tool names and descriptions, e.g. `echo` or `github issue`.") }),
    describe: (i) => `Search tools: ${i.query}`,
    async execute(i) {
      const found = matchTools(deferred, i.query);
      if (!found.length) return ok(`No deferred tool matches "${i.query}". Available: ${names}.`);
      const text = found
        .map((t) => `## ${t.name}\n\n${t.description}\n\nInput schema:\n${JSON.stringify(inputJsonSchema(t, "openai-compatible"))}`)
        .join("\n\n");
      return ok(`Loaded ${found.length} tool${found.length === 1 ? "" : "s"}; call them directly now.\n\n${text}`, {
        kind: "markdown",
        text: `Loaded: ${found.map((t) => `\`${t.name}\``).join(", ")}`,
      }, { loaded: found.map((t) => t.name) });
    },
  });
}
