import type { Db } from "@/server/db/client";

// Review comments on lines of a session's diff (server/services/review-comments.ts).

export type ReviewCommentRow = {
  id: string;
  sessionId: string;
  authorId: string | null;
  authorName: string | null;
  path: string;
  line: number;
  side: "current" | "original";
  lineText: string;
  body: string;
  createdAt: Date;
  sentAt: Date | null;
  addressedAt: Date | null;
};

const select = {
  id: true,
  sessionId: true,
  authorId: true,
  author: { select: { name: true } },
  path: true,
  line: true,
  side: true,
  lineText: true,
  body: true,
  createdAt: true,
  sentAt: true,
  addressedAt: true,
} as const;

const toRow = ({
  author,
  side,
  ...raw
}: {
  author: { name: string } | null;
  side: string;
} & Omit<ReviewCommentRow, "authorName" | "side">): ReviewCommentRow => ({
  ...raw,
  side: side === "original" ? "original" : "current",
  authorName: author?.name ?? null,
});

/** A session keeps at most this many comments: adding one more is refused until some are deleted. */
export const MAX_COMMENTS_PER_SESSION = 500;

export async function countComments(db: Db, sessionId: string): Promise<number> {
  return db.reviewComment.count({ where: { sessionId } });
}

export async function createComment(
  db: Db,
  input: Pick<ReviewCommentRow, "sessionId" | "authorId" | "path" | "line" | "side" | "lineText" | "body">,
): Promise<ReviewCommentRow> {
  return toRow(await db.reviewComment.create({ data: input, select }));
}

export async function listComments(db: Db, sessionId: string): Promise<ReviewCommentRow[]> {
  const rows = await db.reviewComment.findMany({
    where: { sessionId },
    select,
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    take: MAX_COMMENTS_PER_SESSION,
  });
  return rows.map(toRow);
}

/** Removes a comment of this session written by `authorId`; false when there is none. */
export async function deleteComment(db: Db, input: { id: string; sessionId: string; authorId: string }) {
  return (await db.reviewComment.deleteMany({ where: input })).count > 0;
}

/** Comments not yet sent to the agent (nor addressed). */
export async function listOpenComments(db: Db, sessionId: string): Promise<ReviewCommentRow[]> {
  const rows = await db.reviewComment.findMany({
    where: { sessionId, sentAt: null, addressedAt: null },
    select,
    orderBy: [{ path: "asc" }, { line: "asc" }, { createdAt: "asc" }],
  });
  return rows.map(toRow);
}

/** Marks them sent, only those still open: two "Send review" at once send each comment once. */
export async function markCommentsSent(db: Db, sessionId: string, ids: string[], at: Date): Promise<string[]> {
  const rows = await db.sql<{ id: string }>`
    UPDATE review_comment SET "sentAt" = ${at}::timestamp
    WHERE "sessionId" = ${sessionId} AND id = ANY(${ids}::text[]) AND "sentAt" IS NULL AND "addressedAt" IS NULL
    RETURNING id`;
  return rows.map((r) => r.id);
}

/** Gives comments back their open state (their message could not be sent). */
export async function unmarkCommentsSent(db: Db, sessionId: string, ids: string[]) {
  await db.reviewComment.updateMany({ where: { sessionId, id: { in: ids } }, data: { sentAt: null } });
}

/** Comments sent to the agent that no change has addressed yet. */
export async function listSentUnaddressed(db: Db, sessionId: string): Promise<ReviewCommentRow[]> {
  const rows = await db.reviewComment.findMany({
    where: { sessionId, sentAt: { not: null }, addressedAt: null },
    select,
  });
  return rows.map(toRow);
}

export async function markCommentsAddressed(db: Db, sessionId: string, ids: string[], at: Date) {
  if (ids.length === 0) return 0;
  return (
    await db.reviewComment.updateMany({
      where: { sessionId, id: { in: ids }, addressedAt: null },
      data: { addressedAt: at },
    })
  ).count;
}
