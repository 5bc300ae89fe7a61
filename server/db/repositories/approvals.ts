import { Prisma } from "@/generated/prisma/client";
import type { Db } from "@/server/db/client";

export type ApprovalStatus = "pending" | "approved" | "rejected" | "answered";
export type ApprovalRow = {
  id: string;
  sessionId: string;
  toolCallId: string;
  toolName: string;
  kind: "tool" | "question";
  input: unknown;
  status: ApprovalStatus;
  decision: string | null;
  feedback: string | null;
  answer: unknown;
  resolvedById: string | null;
  createdAt: Date;
  resolvedAt: Date | null;
};

const toRow = (raw: Prisma.ApprovalGetPayload<object>): ApprovalRow => ({
  ...raw,
  kind: raw.kind === "question" ? "question" : "tool",
  status: raw.status as ApprovalStatus,
});

/** Idempotent per tool call: a turn re-entered after a restart finds the request it already made. */
export async function createApproval(
  db: Db,
  input: { sessionId: string; toolCallId: string; toolName: string; kind: "tool" | "question"; input: unknown },
): Promise<{ approval: ApprovalRow; created: boolean }> {
  const existing = await findApprovalForCall(db, input.sessionId, input.toolCallId);
  if (existing) return { approval: existing, created: false };
  const raw = await db.approval.create({ data: { ...input, input: (input.input ?? {}) as Prisma.InputJsonValue } });
  return { approval: toRow(raw), created: true };
}

export async function findApproval(db: Db, id: string) {
  const raw = await db.approval.findUnique({ where: { id }, include: { session: { select: { projectId: true } } } });
  return raw && { ...toRow(raw), projectId: raw.session.projectId };
}

export async function findApprovalForCall(db: Db, sessionId: string, toolCallId: string) {
  const raw = await db.approval.findUnique({ where: { sessionId_toolCallId: { sessionId, toolCallId } } });
  return raw && toRow(raw);
}

export async function listPendingApprovals(db: Db, sessionId: string) {
  return (await db.approval.findMany({ where: { sessionId, status: "pending" }, orderBy: { createdAt: "asc" } })).map(toRow);
}

/** Resolves a pending approval; false when someone else answered first. */
export async function resolveApproval(
  db: Db,
  id: string,
  input: { status: Exclude<ApprovalStatus, "pending">; decision: string; feedback?: string; answer?: unknown; resolvedById: string },
): Promise<boolean> {
  const { count } = await db.approval.updateMany({
    where: { id, status: "pending" },
    data: {
      status: input.status,
      decision: input.decision,
      feedback: input.feedback ?? null,
      answer: input.answer === undefined ? undefined : (input.answer as Prisma.InputJsonValue),
      resolvedById: input.resolvedById,
      resolvedAt: new Date(),
    },
  });
  return count === 1;
}

/** Makes an answered request pending again (a call cut off mid-run by a crash asks anew; the old answer does not count). */
export async function reopenApproval(db: Db, id: string) {
  await db.approval.update({ where: { id }, data: { status: "pending", decision: null, feedback: null, answer: Prisma.DbNull, resolvedById: null, resolvedAt: null } });
}
