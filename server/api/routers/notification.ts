import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { projectAdminProcedure, projectProcedure, protectedProcedure, router } from "@/server/api/trpc";
import { credentialOf } from "@/server/api/context";
import { untilAccessEnds } from "@/server/api/live";
import { ChatDeliveryError } from "@/server/services/chat-webhooks";
import { watchInbox } from "@/server/services/notifications";
import { CHAT_KINDS, channelName, deliveryPrefs, deliveryPrefsSchema, webhookUrl } from "@/lib/notifications";

// A person's inbox and how it reaches them (server/services/notifications.ts): only their own,
// whoever they are. And a project's chat channels for the agent's send_message: their names and
// kinds for the project's readers, set and removed by its maintainers (URLs never go back out).

const chat = z.object({ kind: z.enum(CHAT_KINDS), url: webhookUrl });

export const notificationRouter = router({
  list: protectedProcedure
    .input(
      z.object({
        unreadOnly: z.boolean().default(false),
        limit: z.number().int().min(1).max(100).default(30),
        before: z.date().optional(),
      }),
    )
    .query(({ ctx, input }) => ctx.services.notifications.list(ctx.user.id, input)),

  unreadCount: protectedProcedure.query(({ ctx }) => ctx.services.notifications.unreadCount(ctx.user.id)),

  /** Marks the given notifications of the caller read, or all of them without `ids`. */
  markRead: protectedProcedure
    .input(z.object({ ids: z.array(z.string().uuid()).min(1).max(200).optional() }))
    .mutation(({ ctx, input }) => ctx.services.notifications.markRead(ctx.user.id, input.ids)),

  /** The unread count and the newest unread notification, then again whenever the inbox changes. */
  watch: protectedProcedure.subscription(({ ctx, signal }) => {
    const { notifications, inboxChanges, accessChanges } = ctx.services;
    const recheck = async () => {
      if (ctx.currentUser && !(await ctx.currentUser()))
        throw new TRPCError({ code: "UNAUTHORIZED", message: "Sign in to continue." });
    };
    return untilAccessEnds(
      accessChanges,
      credentialOf(ctx),
      recheck,
      watchInbox(notifications, inboxChanges, ctx.user.id, signal),
    );
  }),

  settings: protectedProcedure.query(({ ctx }) => ctx.services.notifications.settings(ctx.user.id)),

  /** Saves the choices per kind; `chat` null removes the webhook, absent keeps it. */
  saveSettings: protectedProcedure
    .input(z.object({ prefs: deliveryPrefsSchema, chat: chat.nullable().optional() }))
    .mutation(({ ctx, input }) =>
      ctx.services.notifications.saveSettings(ctx.user.id, {
        prefs: deliveryPrefs(input.prefs),
        ...(input.chat !== undefined ? { chat: input.chat } : {}),
      }),
    ),

  /** Posts a test message to the caller's chat webhook now. */
  testChat: protectedProcedure.mutation(async ({ ctx }) => {
    try {
      await ctx.services.notifications.testChat(ctx.user.id);
      return { sent: true };
    } catch (error) {
      if (error instanceof ChatDeliveryError) throw new TRPCError({ code: "BAD_REQUEST", message: error.message });
      throw error;
    }
  }),
});

export const channelRouter = router({
  list: projectProcedure.query(({ ctx }) => ctx.services.channels.list(ctx.project.id)),

  /** Adds a channel, or sets a new kind and URL for the name. */
  save: projectAdminProcedure
    .input(z.object({ name: channelName, kind: z.enum(CHAT_KINDS), url: webhookUrl }))
    .mutation(({ ctx, input }) =>
      ctx.services.channels.save({
        projectId: ctx.project.id,
        name: input.name,
        kind: input.kind,
        url: input.url,
        by: ctx.user.id,
      }),
    ),

  remove: projectAdminProcedure.input(z.object({ name: channelName })).mutation(async ({ ctx, input }) => {
    if (!(await ctx.services.channels.remove(ctx.project.id, input.name)))
      throw new TRPCError({ code: "NOT_FOUND", message: `This project has no channel '${input.name}'.` });
    return { name: input.name };
  }),
});
