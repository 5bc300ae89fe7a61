import { z } from "zod";
import { adminProcedure, protectedProcedure, publicProcedure, router } from "@/server/api/trpc";
import * as invites from "@/server/db/repositories/invites";
import { getSetting, setSetting } from "@/server/db/repositories/settings";
import { TRPCError } from "@trpc/server";
import { countUsers, listUsers, setUserDisabled } from "@/server/db/repositories/users";
import { telemetrySummary } from "@/server/db/repositories/telemetry";
import { commandGuardConfigSchema } from "@/lib/command-guard-config";
import { webSearchBackendSchema, type WebSearchBackendConfig } from "@/lib/web-search-config";
import { networkPolicyKind } from "@/lib/egress-policy";
import { describeSandbox } from "@/server/sandbox/describe-sandbox";

export const accountRouter = router({
  // What the sign-in page needs before anyone is signed in.
  status: publicProcedure.query(async ({ ctx }) => {
    const { db } = ctx.services;
    const [users, signupMode] = await Promise.all([countUsers(db), getSetting(db, "signupMode")]);
    // Signed-in people see when commands run without a sandbox (every IDE page shows a banner).
    const { host } = ctx.services.sandbox;
    const sandbox = host.unavailable ? "unavailable" : host.mode === "none" ? "off" : "on";
    const { sso, passwordSignIn } = ctx.services.config;
    return {
      firstRun: users === 0,
      signupMode,
      user: ctx.user,
      sandbox: ctx.user ? sandbox : null,
      /** The sign-in page's "Sign in with …" button, and whether it shows the email and password form. */
      sso: sso ? { name: sso.name } : null,
      passwordSignIn,
    };
  }),

  me: protectedProcedure.query(({ ctx }) => ctx.user),

  settings: adminProcedure.query(async ({ ctx }) => ({
    signupMode: await getSetting(ctx.services.db, "signupMode"),
    networkPolicies: await getSetting(ctx.services.db, "networkPolicies"),
    /** Which sandbox, network backend and limits (rlimits, cgroups v2) are in force: the start-up line. */
    sandbox: describeSandbox(ctx.services.sandbox.host),
  })),
  /** Which network policies projects may choose; a project whose policy is ruled out falls back (policyInForce in server/sandbox). */
  setNetworkPolicies: adminProcedure
    .input(
      z.object({
        networkPolicies: z
          .array(networkPolicyKind)
          .min(1, "permit at least one policy (off gives projects no network)"),
      }),
    )
    .mutation(async ({ ctx, input }) => ({
      networkPolicies: await ctx.services.network.setPermitted(input.networkPolicies),
    })),

  setSignupMode: adminProcedure
    .input(z.object({ signupMode: z.enum(["open", "invite"]) }))
    .mutation(async ({ ctx, input }) => {
      await setSetting(ctx.services.db, "signupMode", input.signupMode);
      return { signupMode: input.signupMode };
    }),

  // The destructive-command guard's checks and word lists, for every project on this server.
  commandGuard: adminProcedure.query(({ ctx }) => getSetting(ctx.services.db, "commandGuard")),

  setCommandGuard: adminProcedure
    .input(z.object({ config: commandGuardConfigSchema }))
    .mutation(async ({ ctx, input }) => {
      await setSetting(ctx.services.db, "commandGuard", input.config);
      return input.config;
    }),

  // The web search service: the admin's choice, else the environment's. API keys are never sent back.
  webSearch: adminProcedure.query(async ({ ctx }) => {
    const admin = await getSetting(ctx.services.db, "webSearch");
    const env = ctx.services.config.webSearch;
    const shown = (b: WebSearchBackendConfig | null | undefined) =>
      b ? { kind: b.kind, url: b.url ?? null, hasKey: "apiKey" in b } : null;
    return { admin: shown(admin), env: shown(env) };
  }),

  // The agent's tool and model metrics of every project, from the session log; and where they are exported, if anywhere.
  telemetry: adminProcedure
    .input(
      z.object({
        hours: z
          .number()
          .int()
          .min(1)
          .max(24 * 90),
      }),
    )
    .query(async ({ ctx, input }) => {
      const otlp = ctx.services.config.telemetry;
      const since = new Date(Date.now() - input.hours * 3_600_000);
      return {
        exportTo: otlp ? new URL(otlp.url).origin : null,
        ...(await telemetrySummary(ctx.services.db, { projectId: null, since })),
      };
    }),

  /** `backend: null` goes back to the environment's service. */
  setWebSearch: adminProcedure
    .input(z.object({ backend: webSearchBackendSchema.nullable() }))
    .mutation(async ({ ctx, input }) => {
      await setSetting(ctx.services.db, "webSearch", input.backend);
      return { kind: input.backend?.kind ?? null };
    }),

  users: adminProcedure.query(({ ctx }) => listUsers(ctx.services.db)),

  /** Disabling ends the person's logins and tokens at their next request, on every instance. */
  setUserDisabled: adminProcedure
    .input(z.object({ userId: z.string().min(1), disabled: z.boolean() }))
    .mutation(async ({ ctx, input }) => {
      if (input.userId === ctx.user.id)
        throw new TRPCError({ code: "BAD_REQUEST", message: "You cannot disable your own account." });
      if (!(await setUserDisabled(ctx.services.db, input.userId, input.disabled)))
        throw new TRPCError({ code: "NOT_FOUND", message: "No such account." });
      ctx.services.accessChanges.publish({ kind: "user", userId: input.userId });
      return { userId: input.userId, disabled: input.disabled };
    }),

  invites: adminProcedure.query(({ ctx }) => invites.listInvites(ctx.services.db)),

  createInvite: adminProcedure
    .input(z.object({ email: z.email().optional(), ttlDays: z.number().int().min(1).max(90).optional() }))
    .mutation(({ ctx, input }) => invites.createInvite(ctx.services.db, { createdById: ctx.user.id, ...input })),

  revokeInvite: adminProcedure.input(z.object({ id: z.string().uuid() })).mutation(async ({ ctx, input }) => {
    await invites.revokeInvite(ctx.services.db, input.id);
    return { id: input.id };
  }),
});
