import { z } from "zod";
import { TRPCError } from "@trpc/server";
import {
  projectMutationProcedure,
  projectProcedure,
  router,
  workspaceMutationProcedure,
  workspaceProcedure,
} from "@/server/api/trpc";
import {
  createPreviewLink,
  listPreviewLinks,
  previewLinkMakerRole,
  previewVisibilities,
  revokePreviewLink,
  setPreviewVisibility,
} from "@/server/db/repositories/preview-ports";
import { makerStillShares, memberMayOpen, PREVIEW_VISIBILITIES } from "@/server/preview/preview-visibility";

// The TCP ports listening in the project's workspace network (server/sandbox/workspace-network.ts),
// read when asked: the IDE asks every few seconds while it is open, and never otherwise. Who may
// open each port's preview (its visibility, its public links) is decided in server/preview.

const port = z.number().int().min(1).max(65535);
/** A public link lasts at most 30 days. */
export const MAX_PREVIEW_LINK_HOURS = 30 * 24;

const linkState = (link: { revokedAt: Date | null; expiresAt: Date }) =>
  link.revokedAt ? ("revoked" as const) : link.expiresAt <= new Date() ? ("expired" as const) : ("active" as const);

const previewsServed = (networks: unknown) => {
  if (!networks)
    throw new TRPCError({
      code: "PRECONDITION_FAILED",
      message:
        "This server gives workspaces no network of their own (no bubblewrap, or not root), so it serves no previews.",
    });
};

export const portsRouter = router({
  list: workspaceProcedure.query(async ({ ctx }) => {
    const networks = ctx.services.sandbox.networks;
    const ports = networks ? await networks.ports(ctx.workspace.root) : [];
    const visibility = await previewVisibilities(
      ctx.services.db,
      ctx.project.id,
      ports.map((p) => p.port),
    );
    return {
      /** Whether this server gives workspaces a network of their own it can look into. */
      available: networks !== null,
      ports: ports.map(({ port, address, process }) => ({
        port,
        address,
        process,
        visibility: visibility.get(port)!,
        /** Whether the caller may open its preview (a viewer: only a port shared with the team). */
        canOpen: memberMayOpen(ctx.role, visibility.get(port)!),
      })),
    };
  }),

  /**
   * A one-time link to the port's preview on its own origin (at `path` there), for the caller:
   * refused when the port's visibility does not include them. The preview session it opens ends
   * with the caller's login session, so it is made for a signed-in browser alone (not an API token).
   */
  preview: projectProcedure
    .input(
      z.object({
        port,
        path: z
          .string()
          .regex(/^\/(?![/\\])\S*$/, "A path starts with a single /")
          .max(2048)
          .optional(),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      if (!(await ctx.services.previewGate.personMayOpen(ctx.user.id, ctx.project.id, input.port)))
        throw new TRPCError({
          code: "FORBIDDEN",
          message:
            "This port's preview is private to the project's editors. Ask one of them to share it with the team.",
        });
      previewsServed(ctx.services.sandbox.networks);
      if (!ctx.loginSessionId)
        throw new TRPCError({
          code: "FORBIDDEN",
          message:
            "A preview opens in a signed-in browser, from the project's Ports view; an API token cannot open one.",
        });
      const url = ctx.services.previews.entryUrl(
        ctx.project.id,
        input.port,
        ctx.user.id,
        ctx.loginSessionId,
        input.path,
      );
      if (!url)
        throw new TRPCError({ code: "PRECONDITION_FAILED", message: "Previews are not served yet; try again." });
      return { url, origin: new URL(url).origin };
    }),

  /** Who may open the port's preview besides public links: the project's editors, or the whole team. */
  setVisibility: projectMutationProcedure
    .input(z.object({ port, visibility: z.enum(PREVIEW_VISIBILITIES as [string, ...string[]]) }))
    .mutation(async ({ ctx, input }) => {
      const visibility = input.visibility === "team" ? "team" : "private";
      await setPreviewVisibility(ctx.services.db, ctx.project.id, input.port, visibility);
      // Who was let in lately is asked again, and open previews of those who may no longer are ended.
      ctx.services.accessChanges.publish({ kind: "project", projectId: ctx.project.id });
      return { port: input.port, visibility };
    }),

  /** The project's public preview links (never their tokens, which are shown once). */
  /** `ended`: live by its dates, but its maker no longer could make it, so it opens nothing. */
  links: projectMutationProcedure.query(async ({ ctx }) =>
    Promise.all(
      (await listPreviewLinks(ctx.services.db, ctx.project.id)).map(async (link) => {
        const state = linkState(link);
        const ended = state === "active" && !makerStillShares(await previewLinkMakerRole(ctx.services.db, link));
        return { ...link, state: ended ? ("ended" as const) : state };
      }),
    ),
  ),

  /** A public link to the port's preview: anyone holding it opens that port until it expires or is revoked. */
  createLink: projectMutationProcedure
    .input(
      z.object({
        port,
        expiresInHours: z
          .number()
          .int()
          .min(1)
          .max(MAX_PREVIEW_LINK_HOURS, `A public link lasts at most ${MAX_PREVIEW_LINK_HOURS / 24} days`),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      previewsServed(ctx.services.sandbox.networks);
      const { link, token } = await createPreviewLink(ctx.services.db, {
        projectId: ctx.project.id,
        port: input.port,
        createdById: ctx.user.id,
        expiresAt: new Date(Date.now() + input.expiresInHours * 3_600_000),
      });
      const url = ctx.services.previews.linkUrl(ctx.project.id, input.port, token);
      if (!url)
        throw new TRPCError({ code: "PRECONDITION_FAILED", message: "Previews are not served yet; try again." });
      return { ...link, state: linkState(link), url };
    }),

  /** Ends the link now: its open pages' requests and WebSockets are closed at once. */
  revokeLink: projectMutationProcedure
    .input(z.object({ linkId: z.string().uuid() }))
    .mutation(async ({ ctx, input }) => {
      if (!(await revokePreviewLink(ctx.services.db, ctx.project.id, input.linkId)))
        throw new TRPCError({
          code: "NOT_FOUND",
          message: "No such live link in this project; it may already be revoked.",
        });
      ctx.services.linkRevocations.publish(input.linkId);
      return { id: input.linkId };
    }),

  stop: workspaceMutationProcedure.input(z.object({ port })).mutation(async ({ ctx, input }) => ({
    stopped: (await ctx.services.sandbox.networks?.stop(ctx.workspace.root, input.port)) ?? false,
  })),
});
