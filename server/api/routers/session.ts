import { tracked, TRPCError } from "@trpc/server";
import { z } from "zod";
import { projectMutationProcedure, projectProcedure, protectedProcedure, router } from "@/server/api/trpc";
import { findProjectForUser, type ProjectRole } from "@/server/db/repositories/projects";
import { listPendingApprovals } from "@/server/db/repositories/approvals";
import { findNote, listNotes, saveNote, updateNote } from "@/server/db/repositories/notes";
import { findSession, listChildSessions, listSessions, renameSession, type AgentSessionRow } from "@/server/db/repositories/sessions";
import { listTodos } from "@/server/db/repositories/todos";
import { endableStream } from "@/server/agent/event-stream";
import { AgentRuntimeError } from "@/server/agent/runtime";

// Agent sessions. Procedures named by a session resolve its project and apply the same access
// check as projectProcedure: a session in a project the caller cannot see is "not found".

const WRITE_ROLES: ProjectRole[] = ["owner", "admin", "member"]; // as in server/api/trpc.ts

const sessionId = z.string().uuid("sessionId must be a session id");

export const sessionProcedure = protectedProcedure.input(z.object({ sessionId })).use(async ({ ctx, input, next }) => {
  const session = await findSession(ctx.services.db, input.sessionId);
  const found = session && (await findProjectForUser(ctx.services.db, session.projectId, ctx.user.id));
  if (!session || !found) throw new TRPCError({ code: "NOT_FOUND", message: "No such session, or you do not have access to it." });
  return next({ ctx: { ...ctx, session, project: found.project, role: found.role } });
});

export const sessionMutationProcedure = sessionProcedure.use(({ ctx, next }) => {
  if (!WRITE_ROLES.includes(ctx.role)) throw new TRPCError({ code: "FORBIDDEN", message: "Your role in this project is read-only." });
  return next();
});

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
    .query(async ({ ctx, input }) => (await listSessions(ctx.services.db, ctx.project.id, { parentId: input.parentId })).map(publicSession)),

  create: projectMutationProcedure
    .input(z.object({ title: z.string().trim().max(200).optional(), model: z.string().min(3).max(200).optional() }))
    .mutation(({ ctx, input }) =>
      runtimeCall(async () => publicSession(await ctx.services.agent.createSession({ projectId: ctx.project.id, title: input.title, model: input.model, authorId: ctx.user.id }))),
    ),

  get: sessionProcedure.query(async ({ ctx }) => {
    const db = ctx.services.db;
    const [children, pendingApprovals, notes, todos] = await Promise.all([
      listChildSessions(db, ctx.session.id),
      listPendingApprovals(db, ctx.session.id),
      listNotes(db, ctx.session.id),
      listTodos(db, ctx.session.id),
    ]);
    return { ...publicSession(ctx.session), children: children.map(publicSession), pendingApprovals, notes, todos, canWrite: WRITE_ROLES.includes(ctx.role) };
  }),

  rename: sessionMutationProcedure
    .input(z.object({ title: z.string().trim().min(1, "title must not be empty").max(200) }))
    .mutation(async ({ ctx, input }) => publicSession(await renameSession(ctx.services.db, ctx.session.id, input.title))),

  delete: sessionMutationProcedure.mutation(async ({ ctx }) => {
    await ctx.services.agent.deleteSession(ctx.session.id);
    return { id: ctx.session.id };
  }),

  send: sessionMutationProcedure
    .input(z.object({ text: z.string().trim().min(1, "text must not be empty").max(100_000) }))
    .mutation(({ ctx, input }) =>
      runtimeCall(async () => {
        const event = await ctx.services.agent.send({ sessionId: ctx.session.id, text: input.text, user: person(ctx.user) });
        return { seq: event.seq };
      }),
    ),

  cancel: sessionMutationProcedure.mutation(({ ctx }) =>
    runtimeCall(async () => {
      await ctx.services.agent.cancel({ sessionId: ctx.session.id, user: person(ctx.user) });
      return { id: ctx.session.id };
    }),
  ),

  resume: sessionMutationProcedure.mutation(({ ctx }) => runtimeCall(() => ctx.services.agent.resume({ sessionId: ctx.session.id, user: person(ctx.user) }))),

  /**
   * The session's log after `afterSeq`, then live: each committed event once, in order, tracked
   * by its seq (a reconnecting client resumes from the last one it got), and provisional text
   * deltas in between (see lib/session-events.ts, "The live stream").
   */
  events: sessionProcedure
    .input(z.object({ afterSeq: z.number().int().min(0).default(0), lastEventId: z.string().regex(/^\d+$/).nullish() }))
    .subscription(({ ctx, input, signal }) => {
      let last = Math.max(input.afterSeq, Number(input.lastEventId ?? 0));
      return endableStream(
        (stop) => ctx.services.agent.stream(ctx.session.id, last, stop),
        (item) => {
          if (item.kind === "event") last = item.event.seq;
          return tracked(String(last), item);
        },
        signal,
      );
    }),

  /** Notes are written by the agent's `note` tool and by people. */
  saveNote: sessionMutationProcedure
    .input(z.object({ noteId: z.string().uuid().optional(), title: z.string().trim().min(1).max(200), content: z.string().max(100_000) }))
    .mutation(async ({ ctx, input }) => {
      const db = ctx.services.db;
      if (!input.noteId) return saveNote(db, { sessionId: ctx.session.id, title: input.title, content: input.content, updatedById: ctx.user.id });
      const note = await findNote(db, input.noteId);
      if (!note || note.sessionId !== ctx.session.id) throw new TRPCError({ code: "NOT_FOUND", message: "No such note in this session." });
      return updateNote(db, note.id, { title: input.title, content: input.content, updatedById: ctx.user.id });
    }),
});
