import { z } from "zod";
import { defineTool } from "./define-tool";
import type { MemoryHit, MemoryOwner } from "./memory";
import { ok } from "./result";

// recall_user_context: the memories of the user the agent works for (the user scope of the
// memory store) that bear on a topic: their preferences, habits and context across projects.

export type UserMemorySearch = (
  owners: MemoryOwner[],
  input: { query: string; limit: number; threshold: number },
) => Promise<MemoryHit[]>;

export function recallUserContextTool(search: UserMemorySearch) {
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
      const hits = await search([{ scope: "user", userId: ctx.userId }], { query: i.topic, limit: 10, threshold: 0 });
      if (!hits.length) return ok(`Nothing remembered about the user for "${i.topic}".`);
      return ok(hits.map((h) => `- ${h.key}: ${h.value}`).join("\n"), {
        kind: "table",
        columns: ["score", "key", "value"],
        rows: hits.map((h) => [h.score.toFixed(2), h.key, h.value.slice(0, 200)]),
      });
    },
  });
}
