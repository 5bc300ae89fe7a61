import { z } from "zod";
import { defineTool } from "./define-tool";
import type { MemoryHit, MemoryOwner } from "./memory";
import { ok } from "./result";

// recall_user_context: the memories of the user the agent works for (the user scope of the
// memory store) that bear on a topic: their preferences, habits and context across projects.
// Ranked by their words (full-text) and, when an embedding model is configured, by meaning too,
// the two rankings fused by reciprocal rank as the knowledge base's are.

export type UserMemorySearch = (
  owners: MemoryOwner[],
  input: { query: string; limit: number; threshold: number },
) => Promise<MemoryHit[]>;
/** The user's memories nearest a topic by meaning (embeddings); absent without an embedding model. */
export type UserMemoryMeaning = (userId: string, topic: string, signal: AbortSignal) => Promise<MemoryHit[]>;

const LIMIT = 10;
const RRF_K = 60;

export function recallUserContextTool(search: UserMemorySearch, meaning?: UserMemoryMeaning) {
  return defineTool({
    name: "recall_user_context",
    kind: "memory",
    description:
      "Recall what you know about the user you are working for that bears on a topic: their preferences, conventions and " +
      "context, remembered across projects (their own memories, not the project's). Call it before decisions that depend on taste.",
    input: z.object({
      topic: z.string().min(1).max(300).describe("The topic, e.g. `commit messages` or `testing style`."),
    }),
    describe: (i) => `Recall user context: ${i.topic}`,
    async execute(i, ctx) {
      const [words, near] = await Promise.all([
        search([{ scope: "user", userId: ctx.userId }], { query: i.topic, limit: LIMIT, threshold: 0 }),
        meaning
          ? meaning(ctx.userId, i.topic, ctx.signal).then(
              (hits) => ({ hits, note: "" }),
              (error: unknown) => ({
                hits: [] as MemoryHit[],
                note: `\n\nNote: ranked by words only; the embedding model failed: ${(error as Error).message}`,
              }),
            )
          : null,
      ]);
      const hits = near ? fuse([words, near.hits]) : words;
      if (!hits.length) return ok(`Nothing remembered about the user for "${i.topic}".${near?.note ?? ""}`);
      return ok(
        `${hits.map((h) => `- ${h.key}: ${h.value}`).join("\n")}${near?.note ?? ""}`,
        {
          kind: "table",
          columns: ["score", "key", "value"],
          rows: hits.map((h) => [h.score.toFixed(3), h.key, h.value.slice(0, 200)]),
        },
        { ranking: near ? "hybrid" : "full-text" },
      );
    },
  });
}

/** Reciprocal rank fusion by key: ranks, not scores, since full-text and cosine scores differ in scale. */
function fuse(rankings: MemoryHit[][]): MemoryHit[] {
  const fused = new Map<string, MemoryHit>();
  for (const ranking of rankings)
    ranking.forEach((hit, rank) => {
      const seen = fused.get(hit.key);
      const score = 1 / (RRF_K + rank + 1);
      fused.set(hit.key, seen ? { ...seen, score: seen.score + score } : { ...hit, score });
    });
  return [...fused.values()].sort((a, b) => b.score - a.score).slice(0, LIMIT);
}
