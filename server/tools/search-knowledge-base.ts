import { z } from "zod";
import { defineTool, type ToolContext } from "./define-tool";
import { failure, ok } from "./result";

// search_knowledge_base: ranked passages from the project's knowledge index (the workspace cut
// into chunks, kept in Postgres and updated as files change, .gitignore honoured), by full-text
// and, when an embedding model is configured, by meaning. With `answer: true` the session's model
// answers the question from the top passages, citing each by path and lines.

export type KnowledgeHit = { path: string; startLine: number; endLine: number; text: string; score: number };
/** `ranking`: which rankings ordered the hits; `note`: why semantic ranking is missing or partial. */
export type KnowledgeResult = { hits: KnowledgeHit[]; ranking: "full-text" | "hybrid"; note?: string };
export type KnowledgeSearch = (
  ctx: Pick<ToolContext, "projectId" | "workspace" | "signal">,
  input: { query: string; limit: number },
) => Promise<KnowledgeResult>;

const ANSWER_PASSAGES = 8;

// Made once: the tool is made anew for each turn, its schema (and the model's JSON schema of it) is not.
const SEARCH_INPUT = z.object({
  query: z.string().min(1).max(500).describe("What you are looking for, in words (a question when answer is true)."),
  limit: z.number().int().min(1).max(30).optional().describe("Most passages to return (default 8)."),
  answer: z
    .boolean()
    .optional()
    .describe("Answer the query from the top passages, with citations, instead of listing them."),
});

export function searchKnowledgeBaseTool(search: KnowledgeSearch) {
  return defineTool({
    name: "search_knowledge_base",
    onDemand: "always",
    kind: "search",
    description:
      "Search the project's knowledge index (every text file of the workspace not ignored by .gitignore, cut into passages) " +
      "by meaning words, not exact text: good for docs, design notes and finding where a topic is handled. Returns ranked " +
      "passages with their path and line range; read the file around them for more. Use grep for exact strings. " +
      "With answer: true, returns an answer to the query written from the top passages, with citations (path:lines).",
    input: SEARCH_INPUT,
    describe: (i) => `${i.answer ? "Ask knowledge" : "Search knowledge"}: ${i.query}`,
    async execute(i, ctx) {
      const result = await search(ctx, {
        query: i.query,
        limit: i.answer ? Math.min(i.limit ?? ANSWER_PASSAGES, ANSWER_PASSAGES) : (i.limit ?? 8),
      });
      const { hits } = result;
      const note = result.note ? `\n\nNote: ${result.note}` : "";
      const meta = { hits: hits.length, ranking: result.ranking, ...(result.note ? { note: result.note } : {}) };
      if (!hits.length)
        return ok(
          `No passage matches "${i.query}". Try other words, or grep for an exact string.${note}`,
          undefined,
          meta,
        );
      if (i.answer) {
        if (!ctx.summarize)
          return failure(
            "UNAVAILABLE",
            "No model is configured to write an answer; call search_knowledge_base without answer to get the passages.",
          );
        return answer(i.query, hits, ctx.summarize, ctx.signal, note, meta);
      }
      const text = hits.map((h) => `## ${label(h)} (score ${h.score.toFixed(3)})\n${h.text}`).join("\n\n");
      return ok(
        text + note,
        {
          kind: "table",
          columns: ["path", "lines", "score"],
          rows: hits.map((h) => [h.path, `${h.startLine}-${h.endLine}`, h.score.toFixed(3)]),
          ...(result.note ? { footer: result.note } : {}),
        },
        meta,
      );
    },
  });
}

const label = (h: KnowledgeHit) => `${h.path}:${h.startLine}-${h.endLine}`;

async function answer(
  query: string,
  hits: KnowledgeHit[],
  summarize: NonNullable<ToolContext["summarize"]>,
  signal: AbortSignal,
  note: string,
  meta: Record<string, unknown>,
) {
  const passages = hits.map((h) => `[${label(h)}]\n${h.text}`).join("\n\n");
  const prompt =
    `Answer this question about the project from the passages below only: ${query}\n` +
    "Cite every statement with the label of the passage it comes from, in square brackets, e.g. [docs/guide.md:1-40]. " +
    "If the passages do not answer the question, say so.";
  const text = (await summarize(prompt, passages, signal)).trim();
  // Only labels of passages the model was given count as citations: a made-up one is not a source.
  const known = new Map(hits.map((h) => [label(h), h]));
  const cited = [...new Set([...text.matchAll(/\[([^\]\s]+:\d+-\d+)\]/g)].map((m) => m[1]!))].filter((l) =>
    known.has(l),
  );
  const sources = cited.length
    ? `\n\nSources:\n${cited.map((l) => `- ${l}`).join("\n")}`
    : "\n\nSources: none of the passages was cited.";
  return ok(`${text}${sources}${note}`, { kind: "markdown", text: `${text}${sources}${note}` }, { ...meta, cited });
}
