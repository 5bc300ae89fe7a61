import { TRPCError } from "@trpc/server";
import { z } from "zod";
import {
  projectAdminProcedure,
  projectMutationProcedure,
  projectProcedure,
  projectRunProcedure,
  router,
  workspaceProcedure,
} from "@/server/api/trpc";
import type { Context } from "@/server/api/context";
import { ADMIN_ROLES } from "@/server/api/access";
import { AgentRuntimeError } from "@/server/agent/runtime";
import { SchedulerError } from "@/server/services/scheduler";
import { loadWorkflows } from "@/server/tools/workflow-engine";
import { loadSkills } from "@/server/agent/definitions";

// A project's extensions, for the settings page: MCP servers and tool discovery (configured by
// the project's admins, since they run commands), their live status, scheduled tasks (pause,
// resume, cancel) and workflows (list, run).

function extensionsOf(ctx: Context) {
  const extensions = ctx.services.extensions;
  if (!extensions)
    throw new TRPCError({ code: "PRECONDITION_FAILED", message: "This server runs without extensions." });
  return extensions;
}

async function scheduleAction<T>(action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (error) {
    if (error instanceof SchedulerError) throw new TRPCError({ code: "BAD_REQUEST", message: error.message });
    throw error;
  }
}

const taskInput = z.object({ taskId: z.string().uuid() });

export const extensionsRouter = router({
  settings: projectProcedure.query(async ({ ctx }) => {
    const extensions = extensionsOf(ctx);
    return {
      ...(await extensions.projectTools.settings(ctx.project.id, { withValues: ADMIN_ROLES.includes(ctx.role) })),
      mailConfigured: extensions.mailConfigured,
      /** Semantic knowledge search: model, backend, passages embedded and pending, why it fails; null when not configured. */
      knowledge: await extensions.knowledge.semanticStatus(ctx.project.id),
    };
  }),

  /** Saves only when everything parses; otherwise returns each problem with where it is. */
  updateSettings: projectAdminProcedure
    .input(
      z.object({
        mcpServersText: z.string().max(100_000).optional(),
        toolDiscoveryCommand: z.string().max(2_000).optional(),
        toolCallCommand: z.string().max(2_000).optional(),
        languageServersText: z.string().max(50_000).optional(),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const { projectId: _projectId, ...patch } = input as typeof input & { projectId?: string };
      return extensionsOf(ctx).projectTools.update(ctx.project.id, patch);
    }),

  /** Each MCP server's connection (connecting configured ones first) and the discovery result. */
  status: projectProcedure.query(({ ctx }) => extensionsOf(ctx).projectTools.status(ctx.project.id)),

  reconnect: projectMutationProcedure
    .input(z.object({ server: z.string().min(1).max(40) }))
    .mutation(async ({ ctx, input }) => {
      if (!(await extensionsOf(ctx).projectTools.reconnect(ctx.project.id, input.server))) {
        throw new TRPCError({ code: "NOT_FOUND", message: `No MCP server named "${input.server}" in this project.` });
      }
      return { ok: true };
    }),

  rediscover: projectMutationProcedure.mutation(async ({ ctx }) => {
    await extensionsOf(ctx).projectTools.rediscover(ctx.project.id);
    return { ok: true };
  }),

  schedules: projectProcedure.query(({ ctx }) => extensionsOf(ctx).scheduler.list(ctx.project.id)),
  pauseSchedule: projectMutationProcedure
    .input(taskInput)
    .mutation(({ ctx, input }) =>
      scheduleAction(() => extensionsOf(ctx).scheduler.pause(ctx.project.id, input.taskId)),
    ),
  resumeSchedule: projectMutationProcedure
    .input(taskInput)
    .mutation(({ ctx, input }) =>
      scheduleAction(() => extensionsOf(ctx).scheduler.resume(ctx.project.id, input.taskId, ctx.user!.id)),
    ),
  cancelSchedule: projectMutationProcedure
    .input(taskInput)
    .mutation(({ ctx, input }) =>
      scheduleAction(() => extensionsOf(ctx).scheduler.cancel(ctx.project.id, input.taskId)),
    ),

  workflows: workspaceProcedure.query(async ({ ctx }) => {
    const { workflows, problems } = await loadWorkflows(ctx.workspace);
    return {
      workflows: workflows.map((w) => ({
        name: w.name,
        path: w.path,
        description: w.description,
        inputs: w.inputs,
        steps: w.steps.map((s) =>
          "parallel" in s
            ? { parallel: s.parallel.map((p) => p.id) }
            : { id: s.id, kind: "run" in s ? ("run" as const) : ("prompt" as const) },
        ),
      })),
      problems,
    };
  }),

  /** The project's skills (.tandem/skills), for the composer's slash commands. */
  skills: workspaceProcedure.query(async ({ ctx }) => {
    const { skills } = await loadSkills(ctx.workspace);
    return { skills: skills.map((s) => ({ name: s.name, description: s.description })) };
  }),

  /** Runs a workflow in a new session of the caller's, which streams each step; returns that session. */
  runWorkflow: projectRunProcedure
    .input(z.object({ workflow: z.string().min(1).max(100), inputs: z.record(z.string(), z.string()).optional() }))
    .mutation(async ({ ctx, input }) => {
      const user = ctx.user!;
      try {
        const session = await ctx.services.agent.createSession({
          projectId: ctx.project.id,
          title: `Workflow: ${input.workflow}`,
          authorId: user.id,
        });
        void ctx.services.agent.runToolFor({
          sessionId: session.id,
          toolName: "workflow",
          input: { workflow: input.workflow, inputs: input.inputs ?? {} },
          user: { id: user.id, name: user.name },
          tokenId: ctx.token?.id ?? null,
        });
        return { sessionId: session.id };
      } catch (error) {
        if (error instanceof AgentRuntimeError) throw new TRPCError({ code: error.code, message: error.message });
        throw error;
      }
    }),
});
