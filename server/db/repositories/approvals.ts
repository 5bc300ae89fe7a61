import { Prisma } from "@/generated/prisma/client";
import type { Db } from "@/server/db/client";
import { recordAudit } from "@/server/db/repositories/audit-events";

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
  turnId: string | null;
  requestSeq: number | null;
  callHash: string | null;
  plan: unknown;
};

const toRow = (raw: Prisma.ApprovalGetPayload<object>): ApprovalRow => ({
  ...raw,
  kind: raw.kind === "question" ? "question" : "tool",
  status: raw.status as ApprovalStatus,
});

/**
 * A request for one call, bound to its turn and the hash of what it runs; `bindRequest` adds the
 * seq of its `approval_requested` event once that is written (server/agent/call-binding.ts).
 */
export async function createApproval(
  db: Db,
  input: {
    sessionId: string;
    toolCallId: string;
    toolName: string;
    kind: "tool" | "question";
    input: unknown;
    turnId: string;
    callHash: string;
    plan: unknown;
  },
): Promise<ApprovalRow> {
  const raw = await db.approval.create({
    data: {
      ...input,
      input: (input.input ?? {}) as Prisma.InputJsonValue,
      plan: input.plan === null || input.plan === undefined ? Prisma.DbNull : (input.plan as Prisma.InputJsonValue),
    },
  });
  return toRow(raw);
}

/** Records where the request is in the log; only a request with no seq yet is bound. */
export async function bindRequest(db: Db, id: string, requestSeq: number) {
  await db.approval.updateMany({ where: { id, requestSeq: null }, data: { requestSeq } });
}

export async function findApproval(db: Db, id: string) {
  const raw = await db.approval.findUnique({ where: { id }, include: { session: { select: { projectId: true } } } });
  return raw && { ...toRow(raw), projectId: raw.session.projectId };
}

/** The answer to the last request for a call of this session (ask_user reads its answer here). */
export async function findApprovalForCall(db: Db, sessionId: string, toolCallId: string) {
  const raw = await db.approval.findFirst({
    where: { sessionId, toolCallId, requestSeq: { not: null } },
    orderBy: { requestSeq: "desc" },
  });
  return raw && toRow(raw);
}

export async function listPendingApprovals(db: Db, sessionId: string) {
  return (
    await db.approval.findMany({
      where: { sessionId, status: "pending", requestSeq: { not: null } },
      orderBy: { createdAt: "asc" },
    })
  ).map(toRow);
}

/** Resolves a pending approval; false when someone else answered first. */
export async function resolveApproval(
  db: Db,
  id: string,
  input: {
    status: Exclude<ApprovalStatus, "pending">;
    decision: string;
    feedback?: string;
    answer?: unknown;
    resolvedById: string;
  },
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
  if (count === 1) {
    const call = await db.approval.findUnique({
      where: { id },
      select: { sessionId: true, toolName: true, kind: true, input: true, session: { select: { projectId: true } } },
    });
    await recordAudit(db, "approval.answered", {
      projectId: call?.session.projectId,
      target: id,
      detail: {
        sessionId: call?.sessionId,
        tool: call?.toolName,
        kind: call?.kind,
        call: call?.input,
        status: input.status,
        decision: input.decision,
      },
    });
  }
  return count === 1;
}
