import { z } from "zod";
import { defineTool } from "./define-tool";
import { ok } from "./result";

// session_search: ranked full-text search over the project's past sessions (people's messages,
// the agent's answers, tool results), so the agent can recall earlier work.

export type SessionSearchHit = {
  sessionId: string;
  title: string;
  seq: number;
  type: string;
  snippet: string;
  score: number;
  createdAt: Date;
};

export type SessionSearch = (input: {
  projectId: string;
  query: string;
  limit: number;
  excludeSessionId: string;
}) => Promise<SessionSearchHit[]>;

export function sessionSearchTool(search: SessionSearch) {
  return defineTool({
    name: "session_search",
    onDemand: "always",
    kind: "search",
    description:
      "Search this project's earlier agent sessions (messages, answers and tool results) by words, best matches first. " +
      "Use it to recall how something was done or decided before.",
    input: z.object({
      query: z.string().min(1).max(500),
      limit: z.number().int().min(1).max(50).optional().describe("Most results (default 10)."),
    }),
    describe: (i) => `Search past sessions: ${i.query}`,
    async execute(i, ctx) {
      const hits = await search({
        projectId: ctx.projectId,
        query: i.query,
        limit: i.limit ?? 10,
        excludeSessionId: ctx.sessionId,
      });
      if (!hits.length) return ok(`No earlier session mentions "${i.query}".`);
      const clean = (s: string) =>
        s
          .replace(/<\/?b>/g, "**")
          .replace(/\s+/g, " ")
          .trim();
      const lines = hits.map(
        (h) =>
          `- [${h.score.toFixed(2)}] session "${h.title}" (${h.sessionId}, #${h.seq}, ${h.type}, ${h.createdAt.toISOString().slice(0, 10)}): ${clean(h.snippet)}`,
      );
      return ok(lines.join("\n"), {
        kind: "table",
        columns: ["score", "session", "where", "text"],
        rows: hits.map((h) => [h.score.toFixed(2), h.title, `#${h.seq} ${h.type}`, clean(h.snippet)]),
      });
    },
  });
}
