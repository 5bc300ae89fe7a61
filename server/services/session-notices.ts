import type { Db } from "@/server/db/client";
import { lastMessageAuthor, projectPeople, sessionParticipants } from "@/server/db/repositories/notifications";
import { findSession } from "@/server/db/repositories/sessions";
import type { Notifier, SessionNotifier } from "@/server/services/notifications";
import type { SessionEvent } from "@/lib/session-events";

// What a session's log tells people (fed every committed event by the session bus's tap, on the
// instance that wrote it, so once): a call or a question waiting for the person whose message
// started the turn (a scheduled run waits for the person who scheduled it: its messages are
// theirs); a turn's end for everyone who follows the session (its author and whoever wrote in it),
// a cancel excepted (a person did that), and those watching it then (they saw it); an answer
// marks the waiting notices read for everyone; `@name` in a message for the project's members so named.
// Sub-agents' sessions tell nobody: their parent's turn does.

const FAILED = new Set(["error", "interrupted", "step_limit", "loop_guard"]);
const TOLD = new Set<SessionEvent["type"]>([
  "approval_requested",
  "approval_resolved",
  "turn_finished",
  "user_message",
]);

export const sessionLink = (projectId: string, sessionId: string) => `/p/${projectId}?session=${sessionId}`;

/** `@handle` in text: a member's email name (before the @) or their name without spaces, any case. */
export function mentionedPeople<P extends { id: string; name: string; email: string }>(
  text: string,
  people: readonly P[],
): P[] {
  const handles = new Set(
    [...text.matchAll(/(?:^|[^\w@.])@([\w.-]{2,64})/g)].map((m) => m[1]!.toLowerCase().replace(/\.$/, "")),
  );
  if (handles.size === 0) return [];
  return people.filter(
    (p) => handles.has(p.email.split("@")[0]!.toLowerCase()) || handles.has(p.name.replace(/\s+/g, "").toLowerCase()),
  );
}

/** Tells the project's members named `@handle` in `text` (the writer excepted) where they were mentioned. */
export async function notifyMentions(
  db: Db,
  notifier: Notifier,
  input: {
    session: { id: string; projectId: string; title: string };
    text: string;
    by: { id: string | null; name: string };
    /** Where in the session (" in a review comment on src/a.ts:12"), or "" for its conversation. */
    where: string;
  },
): Promise<void> {
  const { session } = input;
  for (const person of mentionedPeople(input.text, await projectPeople(db, session.projectId))) {
    if (person.id === input.by.id) continue;
    await notifier.notify(person.id, {
      kind: "mention",
      title: `${input.by.name} mentioned you in "${session.title}"${input.where}`,
      body: input.text.slice(0, 500),
      link: sessionLink(session.projectId, session.id),
      projectId: session.projectId,
      sessionId: session.id,
    });
  }
}

export function createSessionNotices(deps: {
  db: Db;
  notifier: SessionNotifier;
  /** Who watches the session now (the presence bus, every instance's): they see its end themselves. */
  watching?: (sessionId: string) => readonly (string | null)[];
  log?: (line: string) => void;
}) {
  const log = deps.log ?? console.error;
  const work = new Map<string, Promise<void>>();

  async function handle(sessionId: string, event: SessionEvent) {
    const session = await findSession(deps.db, sessionId);
    if (!session || session.parentId) return;
    const link = sessionLink(session.projectId, sessionId);
    const about = { link, projectId: session.projectId, sessionId };
    if (event.type === "approval_requested") {
      const person = (await lastMessageAuthor(deps.db, sessionId)) ?? session.authorId;
      if (!person) return;
      const question = event.payload.kind === "question";
      await deps.notifier.notify(person, {
        ...about,
        kind: question ? "question" : "approval",
        title: question ? `"${session.title}" asks you a question` : `"${session.title}" waits for your approval`,
        body: question ? (event.payload.question ?? event.payload.title) : event.payload.title,
      });
    } else if (event.type === "turn_finished" && event.payload.reason !== "cancelled") {
      const failed = FAILED.has(event.payload.reason);
      const followers = new Set([
        ...(session.authorId ? [session.authorId] : []),
        ...(await sessionParticipants(deps.db, sessionId)),
      ]);
      const watching = new Set(deps.watching?.(sessionId) ?? []);
      for (const person of followers) {
        if (watching.has(person)) continue;
        await deps.notifier.notify(person, {
          ...about,
          kind: failed ? "session_failed" : "session_finished",
          title: failed
            ? `"${session.title}" stopped: ${event.payload.reason.replace("_", " ")}`
            : `"${session.title}" finished`,
          body: event.payload.message ?? "",
        });
      }
    } else if (event.type === "approval_resolved") {
      await deps.notifier.answered(sessionId);
    } else if (event.type === "user_message") {
      await notifyMentions(deps.db, deps.notifier, {
        session,
        text: event.payload.text,
        by: { id: event.authorId, name: event.payload.authorName ?? "Someone" },
        where: "",
      });
    }
  }

  return {
    /** Called with each committed event of any session (server/bus/session-bus.ts's tap). */
    observe(sessionId: string, event: SessionEvent) {
      if (!TOLD.has(event.type)) return;
      const next = (work.get(sessionId) ?? Promise.resolve())
        .then(() => handle(sessionId, event))
        .catch((error: unknown) => log(`notifications: session ${sessionId}: ${(error as Error).message}`));
      work.set(sessionId, next);
      void next.then(() => work.get(sessionId) === next && work.delete(sessionId));
    },
    /** Waits for what is being told (tests, shutdown). */
    settled: () => Promise.all(work.values()).then(() => undefined),
  };
}
