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

/**
 * The snapshot, then the run's events until the subscriber leaves. An iterator by hand rather than
 * a generator: a generator waiting for the next event cannot be ended from outside, so the stream
 * would outlive the caller's access (untilAccessEnds returns it).
 */
function setupStream(
  environment: ProjectEnvironment,
  projectId: string,
  signal: AbortSignal | undefined,
): AsyncIterableIterator<StreamEvent> {
  const queue: StreamEvent[] = [];
  let waiting: ((result: IteratorResult<StreamEvent>) => void) | undefined;
  let ready = false;
  let ended = false;
  const flush = () => {
    if (!ready || !waiting || !queue.length) return;
    const resolve = waiting;
    waiting = undefined;
    resolve({ value: queue.shift()!, done: false });
  };
  // Listening before the snapshot is read: nothing printed in between is lost.
  const stop = environment.setup.watch(projectId, (event) => {
    if (ended) return;
    queue.push(event);
    flush();
  });
  const end = () => {
    ended = true;
    stop();
    waiting?.({ value: undefined, done: true });
    waiting = undefined;
  };
  void environment.setup.status(projectId).then((run) => {
    // A run in progress is read whole in its snapshot: what it printed before is in there.
    if (run?.status === "running") queue.length = 0;
    queue.unshift({ kind: "snapshot", run });
    ready = true;
    flush();
  }, end);
  signal?.addEventListener("abort", end, { once: true });
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    next() {
      if (ready && queue.length) return Promise.resolve({ value: queue.shift()!, done: false });
      if (ended) return Promise.resolve({ value: undefined, done: true });
      return new Promise((resolve) => {
        waiting = resolve;
      });
    },
    return() {
      end();
      return Promise.resolve({ value: undefined, done: true });
    },
  };
}
