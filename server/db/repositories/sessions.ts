import { randomUUID } from "node:crypto";
import type { Prisma } from "@/generated/prisma/client";
import type { Db } from "@/server/db/client";
import type { SessionStatus } from "@/lib/session-events";
import type { Project, ProjectRole } from "@/server/db/repositories/projects";
import { asRole } from "@/server/db/repositories/teams";

export type AgentSessionRow = {
  id: string;
  projectId: string;
  parentId: string | null;
  title: string;
  authorId: string | null;
  model: string;
  status: SessionStatus;
  allowedTools: string[] | null;
  maxSteps: number | null;
  allowRules: unknown;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  /** Who answers approvals: "team" (anyone who may write) or "author" only. */
  approvalsBy: "team" | "author";
  /** The session whose worktree this one works in (its own, or its parent's); null: the main tree. */
  treeId: string | null;
  createdAt: Date;
  updatedAt: Date;
};

const select = {
  id: true,
  projectId: true,
  parentId: true,
  title: true,
  authorId: true,
  model: true,
  status: true,
  allowedTools: true,
  maxSteps: true,
  allowRules: true,
  inputTokens: true,
  outputTokens: true,
  costUsd: true,
  approvalsBy: true,
  treeId: true,
  createdAt: true,
  updatedAt: true,
} as const;

type Raw = Prisma.AgentSessionGetPayload<{ select: typeof select }>;
const toRow = (raw: Raw): AgentSessionRow => ({
  ...raw,
  status: raw.status as SessionStatus,
  allowedTools: Array.isArray(raw.allowedTools) ? (raw.allowedTools as string[]) : null,
  approvalsBy: raw.approvalsBy === "author" ? "author" : "team",
});

/** A new session (every `session.create`, every sub-agent): straight to the pool (db.sql), with Prisma's defaults. */
export async function createSession(
  db: Db,
  input: {
    projectId: string;
    title: string;
    authorId: string | null;
    model: string;
    parentId?: string;
    allowedTools?: string[];
    maxSteps?: number;
    /** A sub-agent works in its parent's tree; a session with a branch of its own is given its own id. */
    treeId?: string | null;
    id?: string;
  },
): Promise<AgentSessionRow> {
  const now = new Date();
  const [raw] = await db.sql<Raw>`
    INSERT INTO agent_session (id, "projectId", "parentId", title, "authorId", model, "allowedTools", "maxSteps", "treeId", "createdAt", "updatedAt")
    VALUES (${input.id ?? randomUUID()}, ${input.projectId}, ${input.parentId ?? null}, ${input.title}, ${input.authorId}, ${input.model},
            ${input.allowedTools ? JSON.stringify(input.allowedTools) : null}::jsonb, ${input.maxSteps ?? null}::int, ${input.treeId ?? null},
            ${now}, ${now})
    RETURNING id, "projectId", "parentId", title, "authorId", model, status, "allowedTools", "maxSteps", "allowRules",
              "inputTokens", "outputTokens", "costUsd", "approvalsBy", "treeId", "createdAt", "updatedAt"`;
  return toRow(raw!);
}

export async function findSession(db: Db, id: string): Promise<AgentSessionRow | null> {
  const raw = await db.agentSession.findUnique({ where: { id }, select });
  return raw && toRow(raw);
}

/**
 * A session with its project and the user's role in the project's team (null when they are not
 * in it), or null when there is no such session: what deciding access to a session needs, in one
 * query, since every session procedure and every turn's send starts with it.
 */
export async function findSessionForUser(
  db: Db,
  id: string,
  userId: string | null,
): Promise<{ session: AgentSessionRow; project: Project; role: ProjectRole | null } | null> {
  const [row] = await db.sql<
    Raw & {
      p_name: string;
      p_ownerId: string;
      p_teamId: string;
      p_createdAt: Date;
      p_updatedAt: Date;
      role: string | null;
    }
  >`
    SELECT s.id, s."projectId", s."parentId", s.title, s."authorId", s.model, s.status, s."allowedTools", s."maxSteps",
           s."allowRules", s."inputTokens", s."outputTokens", s."costUsd", s."approvalsBy", s."treeId", s."createdAt", s."updatedAt",
           p.name AS p_name, p."ownerId" AS "p_ownerId", p."teamId" AS "p_teamId", p."createdAt" AS "p_createdAt", p."updatedAt" AS "p_updatedAt",
           m.role
    FROM agent_session s
    JOIN project p ON p.id = s."projectId"
    LEFT JOIN team_member m ON m."teamId" = p."teamId" AND m."userId" = ${userId}
    WHERE s.id = ${id}`;
  if (!row) return null;
  const { p_name, p_ownerId, p_teamId, p_createdAt, p_updatedAt, role, ...session } = row;
  const project: Project = {
    id: session.projectId,
    name: p_name,
    ownerId: p_ownerId,
    teamId: p_teamId,
    createdAt: p_createdAt,
    updatedAt: p_updatedAt,
  };
  return { session: toRow(session), project, role: role === null ? null : asRole(role) };
}

export async function listSessions(
  db: Db,
  projectId: string,
  options: { parentId?: string | null; limit?: number } = {},
) {
  const rows = await db.agentSession.findMany({
    where: { projectId, ...(options.parentId !== undefined ? { parentId: options.parentId } : {}) },
    select,
    orderBy: { updatedAt: "desc" },
    take: options.limit ?? 200,
  });
  return rows.map(toRow);
}

/** Every session of a project, sub-agent sessions included (ids only). */
export async function listSessionIdsOfProject(db: Db, projectId: string): Promise<string[]> {
  return (await db.agentSession.findMany({ where: { projectId }, select: { id: true } })).map((s) => s.id);
}

export async function listChildSessions(db: Db, parentId: string) {
  return (await db.agentSession.findMany({ where: { parentId }, select, orderBy: { createdAt: "asc" } })).map(toRow);
}

export async function renameSession(db: Db, id: string, title: string) {
  return toRow(await db.agentSession.update({ where: { id }, data: { title }, select }));
}

export async function setSessionModel(db: Db, id: string, model: string) {
  await db.agentSession.update({ where: { id }, data: { model } });
}

export async function setApprovalsBy(db: Db, id: string, approvalsBy: "team" | "author") {
  return toRow(await db.agentSession.update({ where: { id }, data: { approvalsBy }, select }));
}

export async function deleteSession(db: Db, id: string) {
  await db.agentSession.delete({ where: { id } });
}

/** Sets the status in one statement; false when the session already had it (or is gone). Every turn sets it at least twice. */
export async function setSessionStatus(db: Db, id: string, status: SessionStatus): Promise<boolean> {
  const count = await db.sql.run`
    UPDATE agent_session SET status = ${status}, "updatedAt" = now() AT TIME ZONE 'UTC' WHERE id = ${id} AND status <> ${status}`;
  return count > 0;
}

/** Adds a step's tokens and cost (every step of every turn); throws when the session is gone, as Prisma's update did. */
export async function addSessionUsage(
  db: Db,
  id: string,
  usage: { inputTokens: number; outputTokens: number; costUsd: number },
) {
  const [row] = await db.sql<{ inputTokens: number; outputTokens: number; costUsd: number }>`
    UPDATE agent_session SET "inputTokens" = "inputTokens" + ${usage.inputTokens}::int, "outputTokens" = "outputTokens" + ${usage.outputTokens}::int,
      "costUsd" = "costUsd" + ${usage.costUsd}::float8, "updatedAt" = now() AT TIME ZONE 'UTC'
    WHERE id = ${id}
    RETURNING "inputTokens", "outputTokens", "costUsd"`;
  if (!row) throw new Error(`session ${id} is gone`);
  return row;
}

export async function setSessionAllowRules(db: Db, id: string, rules: unknown[]) {
  await db.agentSession.update({
    where: { id },
    data: { allowRules: rules as Prisma.InputJsonValue },
    select: { id: true },
  });
}

/**
 * Top-level idle sessions whose log ends with a person's message, and its author (else the
 * session's): sent while the server was shutting down, or stored just before a crash started its
 * turn. Used at start-up to answer them. One step down each session's (sessionId, seq) key, so a
 * long history costs nothing.
 */
export async function findIdleSessionsWithUnansweredMessage(db: Db): Promise<Array<{ id: string; userId: string }>> {
  return db.$queryRaw<Array<{ id: string; userId: string }>>`
    SELECT s.id, coalesce(last."authorId", s."authorId") AS "userId" FROM agent_session s
    CROSS JOIN LATERAL (SELECT e.type, e."authorId" FROM session_event e WHERE e."sessionId" = s.id ORDER BY e.seq DESC LIMIT 1) last
    WHERE s.status = 'idle' AND s."parentId" IS NULL AND last.type = 'user_message'`;
}

/** Sessions whose status is one of `statuses`; used at start-up to find turns a crash cut off. */
export async function findSessionsByStatus(db: Db, statuses: SessionStatus[]) {
  return (await db.agentSession.findMany({ where: { status: { in: statuses } }, select })).map(toRow);
}

/**
 * Whether the session's shell holds its author's own secrets (server/agent/turn-setup.ts): it is
 * not a sub-agent's, nobody but its author wrote into it, and its author has secrets of their own.
 */
export async function holdsAuthorsOwnSecrets(
  db: Db,
  session: Pick<AgentSessionRow, "id" | "authorId" | "parentId">,
): Promise<boolean> {
  if (!session.authorId || session.parentId !== null) return false;
  const [row] = await db.sql<{ holds: boolean }>`
    SELECT EXISTS (SELECT 1 FROM secret WHERE "userId" = ${session.authorId})
       AND NOT EXISTS (
         SELECT 1 FROM session_event
         WHERE "sessionId" = ${session.id} AND type = 'user_message'
           AND "authorId" IS NOT NULL AND "authorId" <> ${session.authorId}
       ) AS holds`;
  return row?.holds === true;
}
