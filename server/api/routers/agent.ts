import { z } from "zod";
import { projectAdminProcedure, projectProcedure, router } from "@/server/api/trpc";
import { getProjectAgentSettings, updateProjectAgentSettings } from "@/server/db/repositories/agent-settings";
import { APPROVAL_MODES, parsePolicy, rulesSchema } from "@/server/agent/policy";

// A project's agent settings: the approval policy (mode, allow and deny rules) and the loop's limits.

export const agentRouter = router({
  settings: projectProcedure.query(async ({ ctx }) => {
    const row = await getProjectAgentSettings(ctx.services.db, ctx.project.id);
    const policy = parsePolicy(row);
    return { approvalMode: policy.mode, allowRules: policy.allow, denyRules: policy.deny, stepLimit: row.stepLimit, loopGuardRepeats: row.loopGuardRepeats };
  }),

  updateSettings: projectAdminProcedure
    .input(
      z.object({
        approvalMode: z.enum(APPROVAL_MODES).optional(),
        allowRules: rulesSchema.max(200).optional(),
        denyRules: rulesSchema.max(200).optional(),
        stepLimit: z.number().int().min(1).max(500).optional(),
        loopGuardRepeats: z.number().int().min(2).max(50).optional(),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const { projectId: _projectId, ...patch } = input as typeof input & { projectId?: string };
      return updateProjectAgentSettings(ctx.services.db, ctx.project.id, patch);
    }),
});
