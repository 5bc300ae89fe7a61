import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { checkShareToken, makerStillShares } from "@/server/api/access";
import { sessionFiles, touchedFiles, touchedOnly } from "@/server/api/share-files";
import { publicProcedure, router, sessionMutationProcedure, sessionViewProcedure } from "@/server/api/trpc";
import { createShareLink, listShareLinks, revokeShareLink } from "@/server/db/repositories/share-links";
import { findProject } from "@/server/db/repositories/projects";
import { findSession } from "@/server/db/repositories/sessions";
import { isWorkspaceError } from "@/server/workspace";

// Share links to one agent session (/s/<token>). Made, listed and revoked by the session's
// writers; opened by anyone holding one. What a holder may reach is decided in access.ts.

export const MAX_SHARE_DAYS = 90;

const linkState = (link: { revokedAt: Date | null; expiresAt: Date }) =>
  link.revokedAt ? ("revoked" as const) : link.expiresAt <= new Date() ? ("expired" as const) : ("active" as const);

export const shareRouter = router({
  create: sessionMutationProcedure
    .input(
      z.object({
        scope: z.enum(["view", "collaborate"]),
        label: z.string().trim().min(1, "Give the link a label, e.g. who it is for").max(100),
        expiresInDays: z
          .number()
          .int()
          .min(1)
          .max(MAX_SHARE_DAYS, `A link lasts at most ${MAX_SHARE_DAYS} days`)
          .default(7),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const expiresAt = new Date(Date.now() + input.expiresInDays * 86_400_000);
      const { link, token } = await createShareLink(ctx.services.db, {
        sessionId: ctx.session.id,
        scope: input.scope,
        label: input.label,
        createdById: ctx.user.id,
        expiresAt,
      });
      return { ...link, state: linkState(link), token, path: `/s/${token}` };
    }),

  /** `ended`: live by its dates, but its maker no longer could share the session, so it shows nothing. */
  list: sessionMutationProcedure.query(async ({ ctx }) =>
    Promise.all(
      (await listShareLinks(ctx.services.db, ctx.session.id)).map(async (link) => {
        const state = linkState(link);
        const ended = state === "active" && !(await makerStillShares(ctx.services.db, link));
        return { ...link, state: ended ? ("ended" as const) : state };
      }),
    ),
  ),

  /** Ends the link now: its live viewers are disconnected (their streams end) at once. */
  revoke: sessionMutationProcedure.input(z.object({ linkId: z.string().uuid() })).mutation(async ({ ctx, input }) => {
    if (!(await revokeShareLink(ctx.services.db, ctx.session.id, input.linkId))) {
      throw new TRPCError({
        code: "NOT_FOUND",
        message: "No such live link on this session; it may already be revoked.",
      });
    }
    ctx.services.linkRevocations.publish(input.linkId);
    return { id: input.linkId };
  }),

  /** What the /s/<token> page shows first. Rate limited per address: tokens are not for guessing. */
  resolve: publicProcedure.input(z.object({ token: z.string().min(1).max(200) })).query(async ({ ctx, input }) => {
    if (!(await ctx.services.limits.take("shareLink", ctx.clientIp ?? "unknown"))) {
      throw new TRPCError({
        code: "TOO_MANY_REQUESTS",
        message: "Too many link look-ups from your address. Wait a minute and try again.",
      });
    }
    const state = await checkShareToken(ctx.services.db, input.token);
    if (!state.ok) return { state: state.reason, message: state.message } as const;
    const session = await findSession(ctx.services.db, state.link.sessionId);
    const project = session && (await findProject(ctx.services.db, session.projectId));
    if (!session || !project) return { state: "invalid", message: "The session of this link was deleted." } as const;
    return {
      state: "active",
      scope: state.link.scope,
      label: state.link.label,
      expiresAt: state.link.expiresAt,
      session: { id: session.id, title: session.title },
      project: { id: project.id, name: project.name },
      signedIn: ctx.user !== null,
    } as const;
  }),

  files: sessionViewProcedure.query(({ ctx }) => touchedFiles(ctx.services.db, ctx.session.id)),

  /**
   * A file the session touched, read-only, as it is now. What the name leads to now counts: a
   * touched name since turned into a link (or reached through a linked folder) opens only when
   * the file it leads to was touched too, and that file is what is read.
   */
  read: sessionViewProcedure.input(z.object({ path: z.string().min(1).max(4096) })).query(async ({ ctx, input }) => {
    const touched = await touchedFiles(ctx.services.db, ctx.session.id);
    if (!touched.includes(input.path)) {
      throw new TRPCError({ code: "NOT_FOUND", message: "This link opens only the files its session touched." });
    }
    const workspace = await sessionFiles(ctx.services, ctx.session);
    if (!workspace)
      throw new TRPCError({
        code: "NOT_FOUND",
        message: "This session's branch was discarded, and its files with it.",
      });
    try {
      return {
        ...(await workspace.read(input.path, touchedOnly(touched, workspace.root, input.path))),
        path: input.path,
      };
    } catch (error) {
      if (isWorkspaceError(error))
        throw new TRPCError({ code: error.code === "NOT_FOUND" ? "NOT_FOUND" : "BAD_REQUEST", message: error.message });
      throw error;
    }
  }),
});
