import { z } from "zod";
import { adminProcedure, projectProcedure, router } from "@/server/api/trpc";
import { listModelSettings, setModelSetting } from "@/server/db/repositories/agent-settings";
import { defaultContextWindow, parseModelId } from "@/server/agent/providers";

// Which models this server can use, and the per-model facts an admin sets (prices, context window).

const modelId = z.string().min(3).max(200).refine((id) => {
  try {
    parseModelId(id);
    return true;
  } catch {
    return false;
  }
}, "model must be provider:model, e.g. anthropic:claude-sonnet-4-5");

const price = z.number().min(0).max(10_000).nullable();

export const modelRouter = router({
  list: projectProcedure.query(async ({ ctx }) => {
    const settings = await listModelSettings(ctx.services.db);
    return {
      defaultModel: ctx.services.models.defaultModel,
      providers: await ctx.services.models.providers(),
      settings: settings.map((s) => ({ ...s, contextWindow: s.contextWindow ?? defaultContextWindow(s.model) })),
    };
  }),

  setSettings: adminProcedure
    .input(
      z.object({
        model: modelId,
        inputPerMTok: price,
        outputPerMTok: price,
        cachedInputPerMTok: price.optional().default(null),
        contextWindow: z.number().int().min(1000).max(10_000_000).nullable(),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      await setModelSetting(ctx.services.db, input);
      return input;
    }),
});
