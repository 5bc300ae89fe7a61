import type { Db } from "@/server/db/client";
import { isUniqueViolation } from "@/server/db/sql";
import { parseSessionEvent, type SessionEvent, type SessionEventType } from "@/lib/session-events";

export type NewEventRow = {
  sessionId: string;
  seq: number;
  type: SessionEventType;
  payload: unknown;
  authorId: string | null;
  createdAt: Date;
};

/** The primary key (sessionId, seq) refused a row: another writer (another instance) took that seq. */
export class SeqTakenError extends Error {
  constructor(cause: unknown) {
    super("a session event's seq is taken", { cause });
  }
}

/**
 * Inserts rows whose seqs the caller assigned, in one statement; a reused seq fails it with
 * SeqTakenError. SQL over arrays (unnest), straight to the pool (db.sql): every streaming session
 * writes rows several times a second, and Prisma's createMany spent about 1.5 ms of CPU on ten rows
 * where this spends 0.3 ms. Times go as ISO text into `timestamp(3)`, which keeps their UTC wall
 * time, as Prisma does.
 */
export async function insertEvents(db: Db, rows: NewEventRow[]) {
  try {
    await db.sql.run`
      INSERT INTO session_event ("sessionId", seq, type, payload, "authorId", "createdAt")
      SELECT * FROM unnest(
        ${rows.map((r) => r.sessionId)}::text[], ${rows.map((r) => r.seq)}::int[], ${rows.map((r) => r.type)}::text[],
        ${rows.map((r) => JSON.stringify(r.payload))}::jsonb[], ${rows.map((r) => r.authorId)}::text[],
        ${rows.map((r) => r.createdAt.toISOString())}::timestamp(3)[])`;
  } catch (error) {
    throw isUniqueViolation(error) ? new SeqTakenError(error) : error;
  }
}

/**
 * The log after `afterSeq`, in seq order. Straight to the pool (db.sql): a turn reads its session's
 * log several times (its start, after each step, at its end) and every viewer once.
 */
export async function listEvents(db: Db, sessionId: string, afterSeq = 0, limit = 10_000): Promise<SessionEvent[]> {
  const rows = await db.sql<Parameters<typeof parseSessionEvent>[0]>`
    SELECT "sessionId", seq, type, payload, "authorId", "createdAt" FROM session_event
    WHERE "sessionId" = ${sessionId} AND seq > ${afterSeq} ORDER BY seq LIMIT ${limit}`;
  return rows.map(parseSessionEvent);
}

/** Only events of these types, in seq order (e.g. what the review needs from a long session). */
export async function listEventsOfTypes(
  db: Db,
  sessionId: string,
  types: readonly SessionEventType[],
): Promise<SessionEvent[]> {
  const rows = await db.sessionEvent.findMany({
    where: { sessionId, type: { in: [...types] } },
    orderBy: { seq: "asc" },
  });
  return rows.map(parseSessionEvent);
}

/** The session's latest event of this type, or null. */
export async function lastEventOfType(db: Db, sessionId: string, type: SessionEventType): Promise<SessionEvent | null> {
  const row = await db.sessionEvent.findFirst({ where: { sessionId, type }, orderBy: { seq: "desc" } });
  return row && parseSessionEvent(row);
}

/** The session's highest seq, 0 for an empty log (read at each turn's start). */
export async function lastSeq(db: Db, sessionId: string): Promise<number> {
  const [row] = await db.sql<{
    seq: number;
  }>`SELECT coalesce(max(seq), 0)::int AS seq FROM session_event WHERE "sessionId" = ${sessionId}`;
  return row?.seq ?? 0;
}

/** A tsquery matching any of the words (OR), so partial recall still ranks; null when no words. */
export function anyWordQuery(text: string): string | null {
  const words = text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
  const unique = [...new Set(words)].slice(0, 32);
  return unique.length ? unique.map((w) => `'${w}'`).join(" | ") : null;
}

export type SessionSearchHit = {
  sessionId: string;
  title: string;
  seq: number;
  type: string;
  snippet: string;
  score: number;
  createdAt: Date;
};

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
