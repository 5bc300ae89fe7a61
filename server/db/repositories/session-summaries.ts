import type { Db } from "@/server/db/client";
import type { SessionStatus } from "@/lib/session-events";

// The sessions board's rows (server/services/session-board.ts): each top-level session of a project
// with its author, what waits in it, what its turns changed and the last check the agent ran, in
// one statement; and the per-session counts the board keeps in `session_summary`.

export type BoardRow = {
  id: string;
  title: string;
  authorId: string | null;
  authorName: string | null;
  status: SessionStatus;
  approvalsBy: "team" | "author";
  /** What the session waits for: a tool call to approve, or an answer to the agent's question. */
  waitingOn: "approval" | "question" | null;
  filesChanged: number;
  linesAdded: number;
  linesRemoved: number;
  check: { command: string; exitCode: number | null; at: Date } | null;
  /** Review comments not yet addressed. */
  openComments: number;
  /** The session's own branch (a session on a branch of its own, session_tree); null in the main tree. */
  branch: string | null;
  /** The pull request opened for that branch from the session, if one was. */
  pullRequestUrl: string | null;
  createdAt: Date;
  /** The last time its state, usage or log moved (every step of a turn moves it). */
  updatedAt: Date;
};

type Raw = Omit<BoardRow, "check" | "waitingOn" | "approvalsBy"> & {
  approvalsBy: string;
  waitingOn: string | null;
  checkCommand: string | null;
  checkExitCode: number | null;
  checkAt: Date | null;
};

const BOARD_LIMIT = 200;

/** The project's top-level sessions as the board shows them, most recently active first; one session when `sessionId` is given. */
export async function listBoardRows(db: Db, projectId: string, sessionId: string | null = null): Promise<BoardRow[]> {
  const rows = await db.sql<Raw>`
    SELECT s.id, s.title, s."authorId", u.name AS "authorName", s.status, s."approvalsBy", s."createdAt", s."updatedAt",
           coalesce(m."filesChanged", 0) AS "filesChanged", coalesce(m."linesAdded", 0) AS "linesAdded",
           coalesce(m."linesRemoved", 0) AS "linesRemoved", m."checkCommand", m."checkExitCode", m."checkAt",
           (SELECT a.kind FROM approval a WHERE a."sessionId" = s.id AND a.status = 'pending'
             ORDER BY a."createdAt" LIMIT 1) AS "waitingOn",
           (SELECT count(*)::int FROM review_comment c WHERE c."sessionId" = s.id AND c."addressedAt" IS NULL) AS "openComments",
           t.branch, t."pullRequestUrl"
    FROM agent_session s
    LEFT JOIN "user" u ON u.id = s."authorId"
    LEFT JOIN session_tree t ON t."sessionId" = s."treeId"
    LEFT JOIN session_summary m ON m."sessionId" = s.id
    WHERE s."projectId" = ${projectId} AND s."parentId" IS NULL AND (${sessionId}::text IS NULL OR s.id = ${sessionId}::text)
    ORDER BY s."updatedAt" DESC
    LIMIT ${BOARD_LIMIT}`;
  return rows.map(({ checkCommand, checkExitCode, checkAt, waitingOn, approvalsBy, ...row }) => ({
    ...row,
    approvalsBy: approvalsBy === "author" ? "author" : "team",
    waitingOn: waitingOn === "question" ? "question" : waitingOn === "tool" ? "approval" : null,
    check:
      checkCommand !== null && checkAt !== null
        ? { command: checkCommand, exitCode: checkExitCode, at: checkAt }
        : null,
  }));
}

/** What the session's turns changed, as its review counts it. */
export async function saveChangeCounts(
  db: Db,
  sessionId: string,
  counts: { filesChanged: number; linesAdded: number; linesRemoved: number },
) {
  await db.sql.run`
    INSERT INTO session_summary ("sessionId", "filesChanged", "linesAdded", "linesRemoved")
    SELECT ${sessionId}, ${counts.filesChanged}::int, ${counts.linesAdded}::int, ${counts.linesRemoved}::int
    WHERE EXISTS (SELECT 1 FROM agent_session WHERE id = ${sessionId})
    ON CONFLICT ("sessionId") DO UPDATE SET "filesChanged" = EXCLUDED."filesChanged",
      "linesAdded" = EXCLUDED."linesAdded", "linesRemoved" = EXCLUDED."linesRemoved"`;
}

/** The last test or check command the agent ran in the session, and how it ended. */
export async function saveLastCheck(
  db: Db,
  sessionId: string,
  check: { command: string; exitCode: number | null; at: Date },
) {
  await db.sql.run`
    INSERT INTO session_summary ("sessionId", "checkCommand", "checkExitCode", "checkAt")
    SELECT ${sessionId}, ${check.command}, ${check.exitCode}::int, ${check.at}::timestamp
    WHERE EXISTS (SELECT 1 FROM agent_session WHERE id = ${sessionId})
    ON CONFLICT ("sessionId") DO UPDATE SET "checkCommand" = EXCLUDED."checkCommand",
      "checkExitCode" = EXCLUDED."checkExitCode", "checkAt" = EXCLUDED."checkAt"`;
}
