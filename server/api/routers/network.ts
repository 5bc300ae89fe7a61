import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { projectAdminProcedure, projectProcedure, router } from "@/server/api/trpc";
import { findSession } from "@/server/db/repositories/sessions";
import { hostPattern, networkPolicyKind } from "@/lib/egress-policy";
import type { EgressConnectionRow } from "@/server/db/repositories/egress-connections";
import { NetworkPolicyError, type ProjectNetwork } from "@/server/services/network";

// A project's network: its policy and allow-list (project admins edit, members read) and the
// egress proxy's connection log, live (Network tab of the project settings).

export const networkRouter = router({
  settings: projectProcedure.query(({ ctx }) => ctx.services.network.settings(ctx.project.id)),

  update: projectAdminProcedure
    .input(z.object({ policy: networkPolicyKind, allowHosts: z.array(hostPattern).max(500) }))
    .mutation(async ({ ctx, input }) => {
      try {
        return await ctx.services.network.save(ctx.project.id, { policy: input.policy, allowHosts: input.allowHosts });
      } catch (error) {
        if (error instanceof NetworkPolicyError) throw new TRPCError({ code: "BAD_REQUEST", message: error.message });
        throw error;
      }
    }),

  /** "Allow <host> for this project?" from a session: adds the host, and the session records who allowed it. */
  allowHost: projectAdminProcedure
    .input(z.object({ host: hostPattern, sessionId: z.string().uuid().optional() }))
    .mutation(async ({ ctx, input }) => {
      const settings = await ctx.services.network.allowHost(ctx.project.id, input.host);
      if (input.sessionId) {
        const session = await findSession(ctx.services.db, input.sessionId);
        if (session?.projectId === ctx.project.id) {
          await ctx.services.agent.log.append(
            session.id,
            "network_host_allowed",
            { host: input.host, by: { id: ctx.user.id, name: ctx.user.name } },
            ctx.user.id,
          );
        }
      }
      return settings;
    }),

  connections: projectProcedure
    .input(z.object({ limit: z.number().int().min(1).max(500).default(200) }))
    .query(({ ctx, input }) => ctx.services.network.recent(ctx.project.id, input.limit)),

  /** New connections of the project as the proxy records them. */
  onConnection: projectProcedure.subscription(({ ctx, signal }) =>
    connectionStream(ctx.services.network, ctx.project.id, signal),
  ),
});

/** The project's connections as they are recorded, until the subscriber leaves. */
function connectionStream(
  network: ProjectNetwork,
  projectId: string,
  signal: AbortSignal | undefined,
): AsyncIterableIterator<EgressConnectionRow> {
  const queue: EgressConnectionRow[] = [];
  let waiting: ((result: IteratorResult<EgressConnectionRow>) => void) | undefined;
  let ended = false;
  const stop = network.watch(projectId, (row) => {
    if (waiting) {
      const resolve = waiting;
      waiting = undefined;
      resolve({ value: row, done: false });
    } else queue.push(row);
  });
  const end = () => {
    ended = true;
    stop();
    waiting?.({ value: undefined, done: true });
    waiting = undefined;
  };
  signal?.addEventListener("abort", end, { once: true });
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    next() {
      if (queue.length) return Promise.resolve({ value: queue.shift()!, done: false });
      if (ended) return Promise.resolve({ value: undefined, done: true });
      return new Promise((resolve) => (waiting = resolve));
    },
    return() {
      end();
      return Promise.resolve({ value: undefined, done: true });
    },
  };
}
