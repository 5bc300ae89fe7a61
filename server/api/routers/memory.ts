import { z } from "zod";
import { projectMutationProcedure, projectProcedure, router } from "@/server/api/trpc";
import { TRPCError } from "@trpc/server";
import {
  deleteMemory,
  listMemories,
  searchMemories,
  setMemoryPinned,
  storeMemory,
  type MemoryOwner,
} from "@/server/db/repositories/memories";
import { memoriesToMarkdown } from "@/server/tools/memory";

// The agent's memory as people see it: the project's (shared) or the caller's own.

const scope = z.object({ scope: z.enum(["project", "user"]).default("project") });
const ownerOf = (scope: "project" | "user", projectId: string, userId: string): MemoryOwner =>
  scope === "project" ? { scope, projectId } : { scope, userId };

export const memoryRouter = router({
  list: projectProcedure
    .input(scope)
    .query(({ ctx, input }) => listMemories(ctx.services.db, ownerOf(input.scope, ctx.project.id, ctx.user.id))),

  export: projectProcedure.input(scope).query(async ({ ctx, input }) => {
    const rows = await listMemories(ctx.services.db, ownerOf(input.scope, ctx.project.id, ctx.user.id));
    const title = input.scope === "project" ? `Memory of ${ctx.project.name}` : `${ctx.user.name}'s memory`;
    return { filename: `${input.scope}-memory.md`, markdown: memoriesToMarkdown(title, rows) };
  }),

  /** Ranked full-text search over one scope, as the agent's `memory` tool searches. */
  search: projectProcedure.input(scope.extend({ query: z.string().trim().min(1).max(500) })).query(({ ctx, input }) =>
    searchMemories(ctx.services.db, [ownerOf(input.scope, ctx.project.id, ctx.user.id)], {
      query: input.query,
      limit: 50,
      threshold: 0,
    }),
  ),

  /** Creates or replaces a memory (people correcting what the agent remembered). */
  save: projectMutationProcedure
    .input(scope.extend({ key: z.string().trim().min(1).max(200), value: z.string().trim().min(1).max(20_000) }))
    .mutation(({ ctx, input }) =>
      storeMemory(ctx.services.db, ownerOf(input.scope, ctx.project.id, ctx.user.id), {
        key: input.key,
        value: input.value,
        createdById: ctx.user.id,
      }),
    ),

  /** A pinned memory goes into every turn's system prompt whole (see server/agent/prompts/context.ts). */
  pin: projectMutationProcedure
    .input(scope.extend({ key: z.string().min(1).max(200) }))
    .mutation(({ ctx, input }) => pin(ctx, input, true)),
  unpin: projectMutationProcedure
    .input(scope.extend({ key: z.string().min(1).max(200) }))
    .mutation(({ ctx, input }) => pin(ctx, input, false)),

  delete: projectMutationProcedure
    .input(scope.extend({ key: z.string().min(1).max(200) }))
    .mutation(async ({ ctx, input }) => ({
      deleted: await deleteMemory(ctx.services.db, ownerOf(input.scope, ctx.project.id, ctx.user.id), input.key),
    })),
});

async function pin(
  ctx: { services: { db: Parameters<typeof setMemoryPinned>[0] }; project: { id: string }; user: { id: string } },
  input: { scope: "project" | "user"; key: string },
  pinned: boolean,
) {
  if (!(await setMemoryPinned(ctx.services.db, ownerOf(input.scope, ctx.project.id, ctx.user.id), input.key, pinned))) {
    throw new TRPCError({ code: "NOT_FOUND", message: `No ${input.scope} memory named "${input.key}".` });
  }
  return { key: input.key, pinned };
}
