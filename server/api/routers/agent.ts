import { z } from "zod";
import { projectAdminProcedure, projectProcedure, router } from "@/server/api/trpc";
import { getProjectAgentSettings, updateProjectAgentSettings } from "@/server/db/repositories/agent-settings";
import { APPROVAL_MODES, parsePolicy, rulesSchema } from "@/server/agent/policy";
import { SWITCHABLE_TOOLS, SWITCHABLE_TOOL_NAMES, switchedOffTools } from "@/server/tools/core-tools";

// A project's agent settings: the approval policy (mode, allow and deny rules), the built-in
// tools turned off, and the loop's limits. Everyone in the project reads them; admins change them.

const firstSentence = (text: string) => text.split(/(?<=\.)\s|\n/)[0]!.trim();

export const agentRouter = router({
  settings: projectProcedure.query(async ({ ctx }) => {
    const row = await getProjectAgentSettings(ctx.services.db, ctx.project.id);
    const policy = parsePolicy(row);
    return {
      approvalMode: policy.mode,
      allowRules: policy.allow,
      denyRules: policy.deny,
      stepLimit: row.stepLimit,
      loopGuardRepeats: row.loopGuardRepeats,
      excludeTools: switchedOffTools(row.excludeTools),
      deferToolsOver: row.deferToolsOver,
      tools: SWITCHABLE_TOOLS.map((t) => ({ name: t.name, kind: t.kind, summary: firstSentence(t.description) })),
    };
  }),

  updateSettings: projectAdminProcedure
    .input(
      z.object({
        approvalMode: z.enum(APPROVAL_MODES).optional(),
        allowRules: rulesSchema.max(200).optional(),
        denyRules: rulesSchema.max(200).optional(),
        stepLimit: z.number().int().min(1).max(500).optional(),
        loopGuardRepeats: z.number().int().min(2).max(50).optional(),
        excludeTools: z.array(z.enum(SWITCHABLE_TOOL_NAMES)).max(SWITCHABLE_TOOL_NAMES.length).optional(),
        deferToolsOver: z.number().int().min(0).max(1000).optional(),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const { projectId: _projectId, ...patch } = input as typeof input & { projectId?: string };
      const row = await updateProjectAgentSettings(ctx.services.db, ctx.project.id, patch);
      return { ...row, excludeTools: switchedOffTools(row.excludeTools) };
    }),
});
