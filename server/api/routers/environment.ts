import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { projectAdminProcedure, projectMutationProcedure, projectProcedure, router } from "@/server/api/trpc";
import { setupScript, toolchainVersion, type SetupRunState } from "@/lib/toolchains";
import { NoSetupScriptError, SetupBusyError, type SetupEvent } from "@/server/environment/setup-runs";
import type { ProjectEnvironment } from "@/server/services/project-environment";

// A project's environment (docs/environments.md): its setup script and toolchain versions
// (project admins), the last setup run, "Rebuild environment" (writers) and its live output.

const optionalVersion = z
  .union([z.literal(""), toolchainVersion])
  .nullable()
  .transform((v) => v || null);

export const environmentRouter = router({
  get: projectProcedure.query(({ ctx }) => ctx.services.environment.status(ctx.project.id)),

  save: projectAdminProcedure
    .input(z.object({ setupScript: setupScript.nullable(), node: optionalVersion, python: optionalVersion }))
    .mutation(({ ctx, input }) =>
      ctx.services.environment.save(ctx.project.id, {
        setupScript: input.setupScript?.trim() ? input.setupScript : null,
        nodeVersion: input.node,
        pythonVersion: input.python,
      }),
    ),

  /** Runs the setup script again (and makes the toolchains ready); its output streams on `output`. */
  rebuild: projectMutationProcedure.mutation(async ({ ctx }) => {
    try {
      return await ctx.services.environment.setup.start(ctx.project.id, "rebuild");
    } catch (error) {
      if (error instanceof SetupBusyError) throw new TRPCError({ code: "CONFLICT", message: error.message });
      if (error instanceof NoSetupScriptError)
        throw new TRPCError({ code: "PRECONDITION_FAILED", message: error.message });
      throw error;
    }
  }),

  /** The run as it is now (with what it printed so far), then its output as it comes and its end. */
  output: projectProcedure.subscription(({ ctx, signal }) =>
    setupStream(ctx.services.environment, ctx.project.id, signal),
  ),
});

type StreamEvent = { kind: "snapshot"; run: SetupRunState | null } | SetupEvent;

async function* setupStream(
  environment: ProjectEnvironment,
  projectId: string,
  signal: AbortSignal | undefined,
): AsyncGenerator<StreamEvent> {
  const queue: SetupEvent[] = [];
  let wake: (() => void) | undefined;
  // Listening before the snapshot is read: nothing printed in between is lost (a piece may show twice at worst).
  const stop = environment.setup.watch(projectId, (event) => {
    queue.push(event);
    wake?.();
  });
  const aborted = new Promise<void>((resolve) => signal?.addEventListener("abort", () => resolve(), { once: true }));
  try {
    const snapshot = await environment.setup.status(projectId);
    if (snapshot?.status === "running") queue.length = 0;
    yield { kind: "snapshot", run: snapshot };
    while (!signal?.aborted) {
      if (!queue.length) {
        await Promise.race([new Promise<void>((resolve) => (wake = resolve)), aborted]);
        wake = undefined;
        continue;
      }
      yield queue.shift()!;
    }
  } finally {
    stop();
  }
}
