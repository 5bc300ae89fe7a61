import type { AgentSessionRow } from "@/server/db/repositories/sessions";
import {
  countComments,
  createComment,
  deleteComment,
  listComments,
  listOpenComments,
  listSentUnaddressed,
  markCommentsAddressed,
  markCommentsSent,
  MAX_COMMENTS_PER_SESSION,
  unmarkCommentsSent,
  type ReviewCommentRow,
} from "@/server/db/repositories/review-comments";
import { listEventsOfTypes } from "@/server/db/repositories/session-events";
import { ReviewError, sessionReview, type ReviewDeps } from "@/server/services/session-review";
import { computeHunks, type Hunk } from "@/server/workspace/checkpoint-hunks";
import { foldReviewLog, REVIEW_EVENT_TYPES } from "@/lib/review-log";

// Review comments: people comment on lines of a session's review diff (all its turns, or one
// turn's), "Send review" sends the open ones to the agent as one message through the session's
// ordinary send, and a turn that then changes a comment's line addresses it (decided here, from that
// turn's checkpoint diff, when the turn ends). Every change is told to the project's board
// (topic "comments"), which is how the team sees comments live.

export type CommentDeps = ReviewDeps & {
  board: { changed(projectId: string, sessionId: string, topic: "session" | "comments"): void };
};
type Person = { id: string; name: string };

export type CommentSide = ReviewCommentRow["side"];

export function reviewComments(deps: CommentDeps, session: AgentSessionRow) {
  const told = () => deps.board.changed(session.projectId, session.id, "comments");

  return {
    list: () => listComments(deps.db, session.id),

    /** A comment on `line` of the file's side in the review (the file now, or before the session or the chosen turn). */
    async add(input: {
      path: string;
      line: number;
      side: CommentSide;
      body: string;
      sinceCheckpointId?: string;
      by: Person;
    }): Promise<ReviewCommentRow> {
      if ((await countComments(deps.db, session.id)) >= MAX_COMMENTS_PER_SESSION) {
        throw new ReviewError(
          "BAD_REQUEST",
          `This session has ${MAX_COMMENTS_PER_SESSION} review comments, as many as it keeps. Delete some first.`,
        );
      }
      // The quoted line is read here, from the review's own view of the file, never taken from the caller.
      const file = await sessionReview(deps, session).file({
        path: input.path,
        sinceCheckpointId: input.sinceCheckpointId,
      });
      const text = input.side === "current" ? file.current : file.original;
      if (text === null) throw new ReviewError("BAD_REQUEST", `'${file.path}' has no text lines to comment on.`);
      const lines = text.split("\n");
      if (input.line > lines.length) {
        throw new ReviewError(
          "BAD_REQUEST",
          `'${file.path}' has ${lines.length} lines here; there is no line ${input.line}. Look at the diff again.`,
        );
      }
      const comment = await createComment(deps.db, {
        sessionId: session.id,
        authorId: input.by.id,
        path: file.path,
        line: input.line,
        side: input.side,
        lineText: lines[input.line - 1]!.replace(/\r$/, ""),
        body: input.body,
      });
      told();
      return comment;
    },

    async remove(input: { commentId: string; by: Person }) {
      const removed = await deleteComment(deps.db, {
        id: input.commentId,
        sessionId: session.id,
        authorId: input.by.id,
      });
      if (!removed) throw new ReviewError("NOT_FOUND", "No comment of yours with that id in this session.");
      told();
      return { id: input.commentId };
    },

    /** "Send review": every open comment, as one message to the agent. */
    /** `tokenId`: the API token the review is sent with (the turn answering it runs under it). */
    async send(input: { by: Person; tokenId?: string | null; timeZone?: string }): Promise<{
      sent: number;
      seq: number | null;
    }> {
      const open = await listOpenComments(deps.db, session.id);
      if (open.length === 0) return { sent: 0, seq: null };
      const claimed = new Set(
        await markCommentsSent(
          deps.db,
          session.id,
          open.map((c) => c.id),
          new Date(),
        ),
      );
      const sending = open.filter((c) => claimed.has(c.id));
      if (sending.length === 0) return { sent: 0, seq: null };
      try {
        const event = await deps.agent.send({
          sessionId: session.id,
          session,
          text: reviewMessage(sending),
          user: input.by,
          tokenId: input.tokenId,
          timeZone: input.timeZone,
        });
        return { sent: sending.length, seq: event.seq };
      } catch (error) {
        await unmarkCommentsSent(deps.db, session.id, [...claimed]);
        throw error;
      } finally {
        told();
      }
    },
  };
}

/** The message "Send review" sends: each comment quoted with its file, line and the line's text. */
export function reviewMessage(comments: readonly ReviewCommentRow[]): string {
  const items = comments.map((c, i) => {
    const where = c.side === "current" ? `line ${c.line}` : `line ${c.line} of the file as it was before your changes`;
    const body = c.body
      .split("\n")
      .map((l) => `   > ${l}`)
      .join("\n");
    const by = c.authorName ? ` (${c.authorName})` : "";
    return `${i + 1}. \`${c.path}\` ${where}: \`${c.lineText.trim()}\`${by}\n${body}`;
  });
  return [
    `Review comments on your changes (${comments.length}). Work through each one, then say briefly what you changed for it.`,
    "",
    items.join("\n\n"),
  ].join("\n");
}

/**
 * Marks addressed the sent comments whose lines the turn changed: a comment on the file as it is
 * (the turn's checkpoint holds the file as it was when the turn began) when the turn's diff removes
 * or replaces its line or inserts right beside it; a comment on the file as it was before the
 * session, when the turn changed that file at all. Returns how many it marked.
 */
export async function addressComments(
  deps: Pick<ReviewDeps, "db" | "checkpoints">,
  session: { id: string; projectId: string },
  turn: { turnId: string; endCheckpointId: string },
): Promise<number> {
  const waiting = await listSentUnaddressed(deps.db, session.id);
  if (waiting.length === 0) return 0;
  const log = foldReviewLog(await listEventsOfTypes(deps.db, session.id, REVIEW_EVENT_TYPES));
  const start = log.checkpoints.findLast((c) => c.turnId === turn.turnId);
  if (!start) return 0;
  const store = await deps.checkpoints.open(session.projectId);
  const hunksOf = new Map<string, Hunk[]>();
  const addressed: string[] = [];
  for (const comment of waiting) {
    let hunks = hunksOf.get(comment.path);
    if (!hunks) {
      const [before, after] = await Promise.all([
        store.fileAt(start.checkpointId, comment.path),
        store.fileAt(turn.endCheckpointId, comment.path),
      ]);
      hunks = computeHunks(before ?? Buffer.alloc(0), after ?? Buffer.alloc(0));
      hunksOf.set(comment.path, hunks);
    }
    if (comment.side === "original" ? hunks.length > 0 : touchesLine(hunks, comment.line)) addressed.push(comment.id);
  }
  return markCommentsAddressed(deps.db, session.id, addressed, new Date());
}

/** Whether the hunks (old file → new file) remove or replace `line` of the old file, or insert right beside it. */
export function touchesLine(hunks: readonly Hunk[], line: number): boolean {
  for (const hunk of hunks) {
    let old = hunk.oldStart;
    for (const text of hunk.lines) {
      if (text.startsWith("-")) {
        if (old === line) return true;
        old += 1;
      } else if (text.startsWith("+")) {
        // Inserted between old lines `old - 1` and `old`.
        if (old === line || old - 1 === line) return true;
      } else if (!text.startsWith("\\")) old += 1;
    }
  }
  return false;
}
