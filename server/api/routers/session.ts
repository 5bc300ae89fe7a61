import { timeZoneSchema } from "@/lib/time-zone";
import { isModelId } from "@/lib/model-providers";
import { tracked, TRPCError } from "@trpc/server";
import { z } from "zod";
import {
  projectProcedure,
  projectRunProcedure,
  router,
  sessionCollaborateProcedure,
  sessionMutationProcedure,
  sessionViewProcedure,
} from "@/server/api/trpc";
import { ADMIN_ROLES, mayAnswerApprovals, WRITE_ROLES } from "@/server/api/access";
import { untilLinkEnds, presenceStream } from "@/server/api/live";
import { listPendingApprovals } from "@/server/db/repositories/approvals";
import { findNote, listNotes, saveNote, updateNote } from "@/server/db/repositories/notes";
import {
  listChildSessions,
  listSessions,
  renameSession,
  setApprovalsBy,
  setSessionModel,
  type AgentSessionRow,
} from "@/server/db/repositories/sessions";
import { listTodos } from "@/server/db/repositories/todos";
import { lastEventOfType } from "@/server/db/repositories/session-events";
import { endableStream } from "@/server/agent/event-stream";
import { committedEvents } from "@/lib/session-events";
import { IMAGE_MEDIA_TYPES, MAX_IMAGE_BYTES, MAX_IMAGES_PER_MESSAGE, imageHashSchema, looksLike } from "@/lib/images";
import { findSessionImage, storeSessionImage } from "@/server/db/repositories/session-images";
import { AgentRuntimeError } from "@/server/agent/runtime";
import { gitCall } from "@/server/api/routers/git";

// Agent sessions. The access tiers (server/api/trpc.ts, decided in server/api/access.ts): members
// read, writers change, collaborators send; watching (get, events, presence) is also open to the
// holders of a live share link to the session.

/** Runtime refusals as API errors. */
export async function runtimeCall<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof AgentRuntimeError) throw new TRPCError({ code: error.code, message: error.message });
    throw error;
  }
}

const publicSession = ({ allowRules: _rules, ...session }: AgentSessionRow) => session;
const person = (user: { id: string; name: string }) => ({ id: user.id, name: user.name });

export const sessionRouter = router({
  list: projectProcedure
    .input(z.object({ parentId: z.string().uuid().nullable().optional() }))
    .query(async ({ ctx, input }) =>
      (await listSessions(ctx.services.db, ctx.project.id, { parentId: input.parentId })).map(publicSession),
    ),

  create: projectRunProcedure
    .input(z.object({ title: z.string().trim().max(200).optional(), model: z.string().min(3).max(200).optional() }))
    .mutation(({ ctx, input }) =>
      runtimeCall(async () => {
        const session = await ctx.services.agent.createSession({
          projectId: ctx.project.id,
          title: input.title,
          model: input.model,
          authorId: ctx.user.id,
        });
        ctx.services.board.changed(ctx.project.id, session.id);
        return publicSession(session);
      }),
    ),

  get: sessionViewProcedure.query(async ({ ctx }) => {
    const db = ctx.services.db;
    const [children, pendingApprovals, notes, todos] = await Promise.all([
      listChildSessions(db, ctx.session.id),
      listPendingApprovals(db, ctx.session.id),
      listNotes(db, ctx.session.id),
      listTodos(db, ctx.session.id),
    ]);
    const writer = ctx.role !== null && WRITE_ROLES.includes(ctx.role);
    const collaborator = writer || (ctx.role !== null && ctx.link?.scope === "collaborate");
    return {
      ...publicSession(ctx.session),
      children: children.map(publicSession),
      pendingApprovals,
      notes,
      todos,
      canWrite: writer,
      /** May send messages (writers, and team members through a collaborate link). */
      canSend: collaborator,
      canAnswer: collaborator && !!ctx.user && mayAnswerApprovals(ctx, ctx.user.id),
      /** May change who answers approvals: the session's author and the team's admins. */
      canManage: writer && (ctx.session.authorId === ctx.user?.id || ADMIN_ROLES.includes(ctx.role!)),
      /** May allow a refused host from the session's card (network.allowHost: the project's admins). */
      canAllowHosts: !!ctx.user && ctx.role !== null && ADMIN_ROLES.includes(ctx.role),
    };
  }),

  /**
   * For scripts: the session's status, the agent's latest message, and the seq of the latest
   * finished turn, which passes the seq `send` returned once the turn that message started is over
   * (docs/api.md#scripts-and-ci-api-tokens).
   */
  reply: sessionViewProcedure.query(async ({ ctx }) => {
    const db = ctx.services.db;
    const [message, finished] = await Promise.all([
      lastEventOfType(db, ctx.session.id, "assistant_message"),
      lastEventOfType(db, ctx.session.id, "turn_finished"),
    ]);
    return {
      status: ctx.session.status,
      text: message?.type === "assistant_message" ? message.payload.text : null,
      finishedSeq: finished?.seq ?? 0,
    };
  }),

  rename: sessionMutationProcedure
    .input(z.object({ title: z.string().trim().min(1, "title must not be empty").max(200) }))
    .mutation(async ({ ctx, input }) => {
      const session = await renameSession(ctx.services.db, ctx.session.id, input.title);
      ctx.services.board.changed(ctx.project.id, session.id);
      return publicSession(session);
    }),

  /** `/model`: the model the session's next turns use. */
  setModel: sessionMutationProcedure
    .input(
      z.object({
        model: z
          .string()
          .trim()
          .refine((id) => isModelId(id), "model must be provider:model, e.g. anthropic:claude-sonnet-4-5")
          .max(200),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      await setSessionModel(ctx.services.db, ctx.session.id, input.model);
      return { model: input.model };
    }),

  /** `/compact`: summarise the conversation now (between turns). */
  compact: sessionMutationProcedure.mutation(({ ctx }) =>
    runtimeCall(() => ctx.services.agent.compact({ sessionId: ctx.session.id })),
  ),

  delete: sessionMutationProcedure.mutation(async ({ ctx }) => {
    await gitCall(() => ctx.services.trees.removeWith(ctx.session));
    await ctx.services.agent.deleteSession(ctx.session.id);
    ctx.services.accessChanges.publish({ kind: "session", sessionId: ctx.session.id });
    ctx.services.board.changed(ctx.project.id, ctx.session.id);
    return { id: ctx.session.id };
  }),

  send: sessionCollaborateProcedure
    .input(
      z.object({
        text: z.string().trim().min(1, "text must not be empty").max(100_000),
        images: z.array(imageHashSchema).max(MAX_IMAGES_PER_MESSAGE).optional(),
        /** `@` mentions: workspace paths (files, folders) or http(s) URLs, attached with the message. */
        mentions: z.array(z.string().trim().min(1).max(2000)).max(10).optional(),
        /** The sender's time zone (their browser's); schedules the agent creates in this turn use it. */
        timeZone: timeZoneSchema.optional(),
      }),
    )
    .mutation(({ ctx, input }) =>
      runtimeCall(async () => {
        const event = await ctx.services.agent.send({
          sessionId: ctx.session.id,
          session: ctx.session,
          text: input.text,
          user: person(ctx.user),
          tokenId: ctx.token?.id ?? null,
          images: input.images,
          mentions: input.mentions,
          timeZone: input.timeZone,
        });
        ctx.services.presence.setTyping(ctx.session.id, `user:${ctx.user.id}`, false);
        return { seq: event.seq };
      }),
    ),

  /** An image pasted or dropped into the composer, stored with the session until a message refers to it. */
  attachImage: sessionCollaborateProcedure
    .input(
      z.object({
        mediaType: z.enum(IMAGE_MEDIA_TYPES),
        data: z
          .base64()
          .max(Math.ceil(MAX_IMAGE_BYTES / 3) * 4, `images over ${MAX_IMAGE_BYTES / 1024 / 1024} MB are not accepted`),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const bytes = Buffer.from(input.data, "base64");
      if (!looksLike(input.mediaType, bytes))
        throw new TRPCError({ code: "BAD_REQUEST", message: `The data is not a ${input.mediaType} image.` });
      return storeSessionImage(ctx.services.db, ctx.session.id, bytes, input.mediaType);
    }),

  /** One of the session's images, for its transcript's thumbnails (read as a blob: URL in the page). */
  image: sessionViewProcedure.input(z.object({ hash: imageHashSchema })).query(async ({ ctx, input }) => {
    const image = await findSessionImage(ctx.services.db, ctx.session.id, input.hash);
    if (!image) throw new TRPCError({ code: "NOT_FOUND", message: "No such image in this session." });
    return { mediaType: image.mediaType, data: Buffer.from(image.data).toString("base64") };
  }),

  cancel: sessionMutationProcedure.mutation(({ ctx }) =>
    runtimeCall(async () => {
      await ctx.services.agent.cancel({ sessionId: ctx.session.id, user: person(ctx.user) });
      return { id: ctx.session.id };
    }),
  ),

  resume: sessionMutationProcedure.mutation(({ ctx }) =>
    runtimeCall(() =>
      ctx.services.agent.resume({ sessionId: ctx.session.id, user: person(ctx.user), tokenId: ctx.token?.id ?? null }),
    ),
  ),

  /**
   * The session's log after `afterSeq`, then live: each committed event once, in order, tracked
   * by its seq (a reconnecting client resumes from the last one it got), and provisional text
   * deltas in between (see lib/session-events.ts, "The live stream").
   */
  events: sessionViewProcedure
    .input(z.object({ afterSeq: z.number().int().min(0).default(0), lastEventId: z.string().regex(/^\d+$/).nullish() }))
    .subscription(({ ctx, input, signal }) => {
      let last = Math.max(input.afterSeq, Number(input.lastEventId ?? 0));
      const stream = endableStream(
        (stop) => ctx.services.agent.stream(ctx.session.id, last, stop),
        (item) => {
          last = committedEvents(item).at(-1)?.seq ?? last;
          return tracked(String(last), item);
        },
        signal,
      );
      return untilLinkEnds(ctx, stream);
    }),

  /** Who is watching the session and who is typing; the caller counts as watching while subscribed. */
  presence: sessionViewProcedure.subscription(({ ctx, signal }) =>
    untilLinkEnds(ctx, presenceStream(ctx.services.presence, ctx.session.id, ctx.viewer, signal)),
  ),

  /** The composer calls this while its person types (at most every couple of seconds). */
  typing: sessionCollaborateProcedure.input(z.object({ typing: z.boolean() })).mutation(({ ctx, input }) => {
    ctx.services.presence.setTyping(ctx.session.id, `user:${ctx.user.id}`, input.typing);
    return { typing: input.typing };
  }),

  /** Whether any writer may answer the session's approvals, or only its author. */
  setApprovalsBy: sessionMutationProcedure
    .use(({ ctx, next }) => {
      if (ctx.session.authorId !== ctx.user.id && !ADMIN_ROLES.includes(ctx.role)) {
        throw new TRPCError({
          code: "FORBIDDEN",
          message: "Only the session's author or a team admin can change who answers approvals.",
        });
      }
      return next();
    })
    .input(z.object({ approvalsBy: z.enum(["team", "author"]) }))
    .mutation(async ({ ctx, input }) => {
      const session = await setApprovalsBy(ctx.services.db, ctx.session.id, input.approvalsBy);
      ctx.services.board.changed(ctx.project.id, session.id);
      return publicSession(session);
    }),

  /** Notes are written by the agent's `note` tool and by people. */
  saveNote: sessionMutationProcedure
    .input(
      z.object({
        noteId: z.string().uuid().optional(),
        title: z.string().trim().min(1).max(200),
        content: z.string().max(100_000),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const db = ctx.services.db;
      if (!input.noteId)
        return saveNote(db, {
          sessionId: ctx.session.id,
          title: input.title,
          content: input.content,
          updatedById: ctx.user.id,
        });
      const note = await findNote(db, input.noteId);
      if (!note || note.sessionId !== ctx.session.id)
        throw new TRPCError({ code: "NOT_FOUND", message: "No such note in this session." });
      return updateNote(db, note.id, { title: input.title, content: input.content, updatedById: ctx.user.id });
    }),
});
