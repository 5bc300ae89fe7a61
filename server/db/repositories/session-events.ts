import type { Prisma } from "@/generated/prisma/client";
import type { Db } from "@/server/db/client";
import { parseSessionEvent, type SessionEvent, type SessionEventType } from "@/lib/session-events";

export type NewEventRow = { sessionId: string; seq: number; type: SessionEventType; payload: unknown; authorId: string | null; createdAt: Date };

/** Inserts rows whose seqs the caller assigned; the primary key (sessionId, seq) refuses a reused seq. */
export async function insertEvents(db: Db, rows: NewEventRow[]) {
  await db.sessionEvent.createMany({
    data: rows.map((row) => ({ ...row, payload: row.payload as Prisma.InputJsonValue })),
  });
}

export async function listEvents(db: Db, sessionId: string, afterSeq = 0, limit = 10_000): Promise<SessionEvent[]> {
  const rows = await db.sessionEvent.findMany({
    where: { sessionId, seq: { gt: afterSeq } },
    orderBy: { seq: "asc" },
    take: limit,
  });
  return rows.map(parseSessionEvent);
}

/** Only events of these types, in seq order (e.g. what the review needs from a long session). */
export async function listEventsOfTypes(db: Db, sessionId: string, types: readonly SessionEventType[]): Promise<SessionEvent[]> {
  const rows = await db.sessionEvent.findMany({ where: { sessionId, type: { in: [...types] } }, orderBy: { seq: "asc" } });
  return rows.map(parseSessionEvent);
}

export async function lastSeq(db: Db, sessionId: string): Promise<number> {
  const row = await db.sessionEvent.findFirst({ where: { sessionId }, orderBy: { seq: "desc" }, select: { seq: true } });
  return row?.seq ?? 0;
}

/** A tsquery matching any of the words (OR), so partial recall still ranks; null when no words. */
export function anyWordQuery(text: string): string | null {
  const words = text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
  const unique = [...new Set(words)].slice(0, 32);
  return unique.length ? unique.map((w) => `'${w}'`).join(" | ") : null;
}

export type SessionSearchHit = { sessionId: string; title: string; seq: number; type: string; snippet: string; score: number; createdAt: Date };

// Ranked full-text search over the project's sessions: people's messages, the agent's messages
// and tool results. No index: the vectors are computed per query, which is fine at a team's scale.
export async function searchSessionEvents(
  db: Db,
  input: { projectId: string; query: string; limit: number; excludeSessionId?: string },
): Promise<SessionSearchHit[]> {
  const tsquery = anyWordQuery(input.query);
  if (!tsquery) return [];
  return db.$queryRaw<SessionSearchHit[]>`
    WITH docs AS (
      SELECT e."sessionId", e.seq, e.type, e."createdAt", s.title,
             coalesce(e.payload->>'text', e.payload->>'llm', '') AS doc
      FROM session_event e JOIN agent_session s ON s.id = e."sessionId"
      WHERE s."projectId" = ${input.projectId}
        AND e.type IN ('user_message', 'assistant_message', 'tool_result')
        AND e."sessionId" <> ${input.excludeSessionId ?? ""}
    ), q AS (SELECT to_tsquery('english', ${tsquery}) AS query)
    SELECT d."sessionId", d.title, d.seq, d.type, d."createdAt",
           ts_headline('english', d.doc, q.query, 'MaxWords=30, MinWords=10, MaxFragments=2') AS snippet,
           ts_rank(to_tsvector('english', d.doc), q.query, 32)::float8 AS score
    FROM docs d, q
    WHERE to_tsvector('english', d.doc) @@ q.query
    ORDER BY score DESC, d."createdAt" DESC
    LIMIT ${input.limit}`;
}
