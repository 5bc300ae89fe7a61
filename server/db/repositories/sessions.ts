import type { Prisma } from "@/generated/prisma/client";
import type { Db } from "@/server/db/client";
import type { SessionStatus } from "@/lib/session-events";

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

export async function createSession(
  db: Db,
  input: { projectId: string; title: string; authorId: string | null; model: string; parentId?: string; allowedTools?: string[]; maxSteps?: number },
): Promise<AgentSessionRow> {
  return toRow(await db.agentSession.create({ data: input, select }));
}

export async function findSession(db: Db, id: string): Promise<AgentSessionRow | null> {
  const raw = await db.agentSession.findUnique({ where: { id }, select });
  return raw && toRow(raw);
}

export async function listSessions(db: Db, projectId: string, options: { parentId?: string | null; limit?: number } = {}) {
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

/** Sets the status in one statement; false when the session is gone or already had it. */
export async function setSessionStatus(db: Db, id: string, status: SessionStatus): Promise<boolean> {
  const { count } = await db.agentSession.updateMany({ where: { id, status: { not: status } }, data: { status } });
  return count > 0;
}

export async function addSessionUsage(db: Db, id: string, usage: { inputTokens: number; outputTokens: number; costUsd: number }) {
  const row = await db.agentSession.update({
    where: { id },
    data: {
      inputTokens: { increment: usage.inputTokens },
      outputTokens: { increment: usage.outputTokens },
      costUsd: { increment: usage.costUsd },
    },
    select: { inputTokens: true, outputTokens: true, costUsd: true },
  });
  return row;
}

export async function setSessionAllowRules(db: Db, id: string, rules: Prisma.InputJsonValue) {
  await db.agentSession.update({ where: { id }, data: { allowRules: rules }, select: { id: true } });
}

/** Sessions whose status is one of `statuses`; used at start-up to find turns a crash cut off. */
export async function findSessionsByStatus(db: Db, statuses: SessionStatus[]) {
  return (await db.agentSession.findMany({ where: { status: { in: statuses } }, select })).map(toRow);
}
