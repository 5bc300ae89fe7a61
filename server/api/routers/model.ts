import { FIXED_COST_WARN_SHARE } from "@/server/agent/fixed-costs";
import { z } from "zod";
import { adminProcedure, projectProcedure, router } from "@/server/api/trpc";
import { listModelSettings, setModelSetting } from "@/server/db/repositories/agent-settings";
import { getSetting } from "@/server/db/repositories/settings";
import { defaultAcceptsImages, defaultContextWindow, parseModelId } from "@/server/agent/providers";
import { chooseWebSearch } from "@/server/agent/web-search-backend";

// Which models this server can use, and the per-model facts an admin sets (prices, context window,
// whether it reads images).

const modelId = z
  .string()
  .min(3)
  .max(200)
  .refine((id) => {
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
    const providers = await ctx.services.models.providers();
    const set = new Map(settings.map((s) => [s.model, s.acceptsImages]));
    const ids = [
      ...(ctx.services.models.defaultModel ? [ctx.services.models.defaultModel] : []),
      ...providers
        .filter((p) => p.configured)
        .flatMap((p) => [...p.suggestions, ...p.models].map((name) => `${p.provider}:${name}`)),
      ...settings.map((s) => s.model),
    ];
    return {
      defaultModel: ctx.services.models.defaultModel,
      providers,
      settings: settings.map((s) => ({
        ...s,
        contextWindow: s.contextWindow ?? defaultContextWindow(s.model),
        acceptsImages: s.acceptsImages ?? defaultAcceptsImages(s.model),
      })),
      /** The models (of those listed) that read images; others get a text note in place of an image. */
      imageModels: [...new Set(ids)].filter((id) => set.get(id) ?? defaultAcceptsImages(id)),
      /** The web search service the agent's web_search uses; null when none is configured (no web_search). */
      webSearch:
        chooseWebSearch(await getSetting(ctx.services.db, "webSearch"), ctx.services.config.webSearch)?.kind ?? null,
    };
  }),

  /**
   * What every request of each model carries before the conversation (instructions and tool
   * definitions), as last measured on this instance, and whether it passes the share of the
   * model's window worth a warning (server/agent/fixed-costs.ts).
   */
  fixedCosts: adminProcedure.query(({ ctx }) => ({
    warnShare: FIXED_COST_WARN_SHARE,
    models: ctx.services.agent.fixedCosts(),
  })),

  setSettings: adminProcedure
    .input(
      z.object({
        model: modelId,
        inputPerMTok: price,
        outputPerMTok: price,
        cachedInputPerMTok: price.optional().default(null),
        contextWindow: z.number().int().min(1000).max(10_000_000).nullable(),
        /** Null: the catalog's default for the model's name. */
        acceptsImages: z.boolean().nullable().optional().default(null),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      await setModelSetting(ctx.services.db, input);
      return input;
    }),
});
