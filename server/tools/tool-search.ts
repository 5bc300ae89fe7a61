import { z } from "zod";
import { defineTool, type Tool } from "./define-tool";
import { ok } from "./result";
import { inputJsonSchema } from "./schema";

// tool_search: when a project brings many tools (MCP servers, discovered tools), the model first
// sees only their names; this tool finds tools by words in their names and descriptions
// (case-insensitive) and loads their schemas, so later steps can call them.

/** Matches per page of results; `page` asks for the next ones. */
export const PAGE_SIZE = 8;

/** One page (1-based) of the tools matching `query`, and how many match in all. */
export function matchPage(tools: readonly Tool[], query: string, page = 1): { tools: Tool[]; total: number } {
  const all = rankTools(tools, query);
  return { tools: all.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE), total: all.length };
}

/** The tools a tool_search call loaded: its page of matches. */
export function matchTools(tools: readonly Tool[], query: string, page = 1): Tool[] {
  return matchPage(tools, query, page).tools;
}

/** Tools ranked by how many query words their name (counted twice) and description contain. */
function rankTools(tools: readonly Tool[], query: string): Tool[] {
  const words = query
    .toLowerCase()
    .split(/[\s,]+/)
    .filter(Boolean);
  if (!words.length) return [];
  const scored = tools.map((tool) => {
    const name = tool.name.toLowerCase();
    const description = tool.description.toLowerCase();
    const score = words.reduce(
      (sum, w) => sum + (name === w ? 10 : 0) + (name.includes(w) ? 2 : 0) + (description.includes(w) ? 1 : 0),
      0,
    );
    return { tool, score };
  });
  return scored
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || a.tool.name.localeCompare(b.tool.name))
    .map((s) => s.tool);
}

// Made once: the tool is made anew for each turn (its description names the deferred tools), its schema is not.
const TOOL_SEARCH_INPUT = z.object({
  query: z
    .string()
    .min(1)
    .max(200)
    .describe("Words to look for in tool names and descriptions, e.g. `echo` or `github issue`."),
  page: z.number().int().min(1).max(100).optional().describe("Which page of matches (default 1)."),
});

export function toolSearchTool(deferred: readonly Tool[]) {
  const names = deferred.map((t) => t.name).join(", ");
  return defineTool({
    name: "tool_search",
    kind: "think",
    description:
      "Find and load tools whose schemas are not loaded yet. Search by words from the tool's name or purpose (case-insensitive); " +
      `the matching tools' descriptions and input schemas come back, ${PAGE_SIZE} a page (ask for \`page\`: 2 and on for more), and you can call them from then on. ` +
      `Tools available this way: ${names}.`,
    input: TOOL_SEARCH_INPUT,
    describe: (i) => `Search tools: ${i.query}`,
    async execute(i) {
      const page = i.page ?? 1;
      const { tools: found, total } = matchPage(deferred, i.query, page);
      const pages = Math.ceil(total / PAGE_SIZE);
      if (!found.length)
        return ok(
          total
            ? `Only ${pages} page${pages === 1 ? "" : "s"} of matches for "${i.query}".`
            : `No deferred tool matches "${i.query}". Available: ${names}.`,
        );
      const more =
        page < pages
          ? `\n\nPage ${page} of ${pages} (${total} matches): call tool_search with page: ${page + 1} for more.`
          : "";
      const text = found
        .map(
          (t) =>
            `## ${t.name}\n\n${t.description}\n\nInput schema:\n${JSON.stringify(inputJsonSchema(t, "openai-compatible"))}`,
        )
        .join("\n\n");
      return ok(
        `Loaded ${found.length} tool${found.length === 1 ? "" : "s"}; call them directly now.\n\n${text}${more}`,
        {
          kind: "markdown",
          text: `Loaded: ${found.map((t) => `\`${t.name}\``).join(", ")}`,
        },
        { loaded: found.map((t) => t.name) },
      );
    },
  });
}
