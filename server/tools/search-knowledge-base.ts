import { z } from "zod";
import { defineTool, type ToolContext } from "./define-tool";
import { ok } from "./result";

// search_knowledge_base: ranked passages from the project's knowledge index (the workspace cut
// into chunks, kept in Postgres and updated as files change, .gitignore honoured).

export type KnowledgeHit = { path: string; startLine: number; endLine: number; text: string; score: number };
export type KnowledgeSearch = (ctx: Pick<ToolContext, "projectId" | "workspace" | "signal">, input: { query: string; limit: number }) => Promise<KnowledgeHit[]>;

export function searchKnowledgeBaseTool(search: KnowledgeSearch) {
  return defineTool({
    name: "search_knowledge_base",
    kind: "search",
    description:
      "Search the project's knowledge index (every text file of the workspace not ignored by .gitignore, cut into passages) " +
      "by meaning words, not exact text: good for docs, design notes and finding where a topic is handled. Returns ranked " +
      "passages with their path and line range; read the file around them for more. Use grep for exact strings.",
    input: z.object({
      query: z.string().min(1).max(500).describe("What you are looking for, in words."),
      limit: z.number().int().min(1).max(30).optional().describe("Most passages to return (default 8)."),
    }),
    describe: (i) => `Search knowledge: ${i.query}`,
    async execute(i, ctx) {
      const hits = await search(ctx, { query: i.query, limit: i.limit ?? 8 });
      if (!hits.length) return ok(`No passage matches "${i.query}". Try other words, or grep for an exact string.`);
      const text = hits.map((h) => `## ${h.path}:${h.startLine}-${h.endLine} (score ${h.score.toFixed(3)})\n${h.text}`).join("\n\n");
      return ok(text, {
        kind: "table",
        columns: ["path", "lines", "score"],
        rows: hits.map((h) => [h.path, `${h.startLine}-${h.endLine}`, h.score.toFixed(3)]),
      }, { hits: hits.length });
    },
  });
}
