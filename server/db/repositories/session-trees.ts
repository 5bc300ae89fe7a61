import type { Db } from "@/server/db/client";

/** open: the worktree is there; merged: its branch went into the base; discarded: worktree and branch removed. */
export type TreeState = "open" | "merged" | "discarded";

export type SessionTreeRow = {
  sessionId: string;
  projectId: string;
  branch: string;
  baseRef: string;
  baseCommit: string;
  state: TreeState;
  /** The pull request opened for the branch from its session, if one was. */
  pullRequestUrl: string | null;
  createdAt: Date;
  updatedAt: Date;
};

/** A tree with what the IDE's switcher shows of its session. */
export type ProjectTreeRow = SessionTreeRow & {
  title: string;
  status: string;
  author: { id: string; name: string } | null;
};

const select = {
  sessionId: true,
  projectId: true,
  branch: true,
  baseRef: true,
  baseCommit: true,
  state: true,
  pullRequestUrl: true,
  createdAt: true,
  updatedAt: true,
} as const;

const asState = (state: string): TreeState => (state === "merged" || state === "discarded" ? state : "open");

export async function createSessionTree(
  db: Db,
  input: { sessionId: string; projectId: string; branch: string; baseRef: string; baseCommit: string },
): Promise<SessionTreeRow> {
  const row = await db.sessionTree.create({ data: input, select });
  return { ...row, state: asState(row.state) };
}

export async function findSessionTree(db: Db, sessionId: string): Promise<SessionTreeRow | null> {
  const row = await db.sessionTree.findUnique({ where: { sessionId }, select });
  return row && { ...row, state: asState(row.state) };
}

/** A project's trees, newest first, with their sessions' titles and authors. */
export async function listProjectTrees(db: Db, projectId: string): Promise<ProjectTreeRow[]> {
  const rows = await db.sessionTree.findMany({
    where: { projectId },
    select: {
      ...select,
      session: { select: { title: true, status: true, author: { select: { id: true, name: true } } } },
    },
    orderBy: { createdAt: "desc" },
    take: 200,
  });
  return rows.map(({ session, ...row }) => ({
    ...row,
    state: asState(row.state),
    title: session.title,
    status: session.status,
    author: session.author,
  }));
}

export async function setSessionTreeState(db: Db, sessionId: string, state: TreeState): Promise<void> {
  await db.sessionTree.update({ where: { sessionId }, data: { state }, select: { sessionId: true } });
}

export async function setSessionTreePullRequest(db: Db, sessionId: string, url: string): Promise<void> {
  await db.sessionTree.update({ where: { sessionId }, data: { pullRequestUrl: url }, select: { sessionId: true } });
}
