import { z } from "zod";
import { projectAdminProcedure, projectProcedure, router } from "@/server/api/trpc";
import { getProjectAgentSettings, updateProjectAgentSettings } from "@/server/db/repositories/agent-settings";
import { APPROVAL_MODES, parsePolicy, rulesSchema } from "@/server/agent/policy";
import { TRPCError } from "@trpc/server";
import { approveProjectHooks, projectHooksStatus, revokeProjectHooks } from "@/server/services/project-hooks";
import { SWITCHABLE_TOOLS, SWITCHABLE_TOOL_NAMES, switchedOffTools } from "@/server/tools/core-tools";

// A project's agent settings: the approval policy (mode, allow and deny rules), the built-in
// tools turned off, the loop's limits, and consent to the repository's hooks file. Everyone in the
// project reads them; admins change them.

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

  /** The main tree's .tandem/hooks.json as it is now, and whether its hooks run. */
  hooks: projectProcedure.query(async ({ ctx }) =>
    projectHooksStatus(ctx.services.db, ctx.project.id, await ctx.services.files.open(ctx.project.id)),
  ),

  /** Approves the hooks file whose digest the admin was shown; refused when it changed since. */
  approveHooks: projectAdminProcedure
    .input(z.object({ digest: z.string().regex(/^[0-9a-f]{64}$/) }))
    .mutation(async ({ ctx, input }) => {
      const workspace = await ctx.services.files.open(ctx.project.id);
      if (!(await approveProjectHooks(ctx.services.db, ctx.project.id, workspace, input.digest)))
        throw new TRPCError({
          code: "CONFLICT",
          message: "The hooks file changed since it was shown (or is not valid): read it again before approving.",
        });
      return { ok: true };
    }),

  revokeHooks: projectAdminProcedure.mutation(async ({ ctx }) => {
    await revokeProjectHooks(ctx.services.db, ctx.project.id);
    return { ok: true };
  }),
});
