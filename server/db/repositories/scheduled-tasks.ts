import type { Db } from "@/server/db/client";

export type ScheduledTaskStatus = "active" | "paused" | "cancelled" | "done";
export type ScheduledTaskRow = {
  id: string;
  projectId: string;
  createdById: string;
  originSessionId: string | null;
  taskPayload: string;
  timeExpression: string;
  description: string;
  cron: string | null;
  timezone: string;
  model: string | null;
  runAt: Date | null;
  status: string;
  nextRunAt: Date | null;
  jobId: string | null;
  createdAt: Date;
};
export type ScheduledRunRow = { id: string; sessionId: string | null; error: string | null; firedAt: Date };
/** `sessionStatus`: the state of the run's session now (e.g. `waiting_approval`), null without one. */
export type ScheduledRunState = ScheduledRunRow & { sessionStatus: string | null };

const select = {
  id: true,
  projectId: true,
  createdById: true,
  originSessionId: true,
  taskPayload: true,
  timeExpression: true,
  description: true,
  cron: true,
  timezone: true,
  model: true,
  runAt: true,
  status: true,
  nextRunAt: true,
  jobId: true,
  createdAt: true,
} as const;

export async function createScheduledTask(
  db: Db,
  data: Omit<ScheduledTaskRow, "id" | "status" | "jobId" | "createdAt" | "timezone" | "model"> & {
    timezone?: string;
    model?: string | null;
  },
): Promise<ScheduledTaskRow> {
  return db.scheduledTask.create({ data, select });
}

/** Whether any task still waits to run (active): what a starting server must schedule for. */
export async function hasActiveScheduledTasks(db: Db): Promise<boolean> {
  return (await db.scheduledTask.findFirst({ where: { status: "active" }, select: { id: true } })) !== null;
}

export async function findScheduledTask(db: Db, id: string): Promise<ScheduledTaskRow | null> {
  return db.scheduledTask.findUnique({ where: { id }, select });
}

export async function updateScheduledTask(
  db: Db,
  id: string,
  patch: Partial<Pick<ScheduledTaskRow, "status" | "nextRunAt" | "jobId">>,
) {
  return db.scheduledTask.update({ where: { id }, data: patch, select });
}

export async function listScheduledTasks(
  db: Db,
  projectId: string,
): Promise<Array<ScheduledTaskRow & { runs: ScheduledRunState[] }>> {
  const list = await db.scheduledTask.findMany({
    where: { projectId },
    select: {
      ...select,
      runs: {
        select: { id: true, sessionId: true, error: true, firedAt: true },
        orderBy: { firedAt: "desc" },
        take: 10,
      },
    },
    orderBy: { createdAt: "desc" },
  });
  const ids = list.flatMap((task) => task.runs.flatMap((run) => (run.sessionId ? [run.sessionId] : [])));
  const sessions = ids.length
    ? await db.agentSession.findMany({ where: { id: { in: ids } }, select: { id: true, status: true } })
    : [];
  const status = new Map(sessions.map((s) => [s.id, s.status]));
  return list.map((task) => ({
    ...task,
    runs: task.runs.map((run) => ({
      ...run,
      sessionStatus: run.sessionId ? (status.get(run.sessionId) ?? null) : null,
    })),
  }));
}

export async function recordScheduledRun(
  db: Db,
  taskId: string,
  run: { sessionId: string | null; error: string | null },
) {
  return db.scheduledTaskRun.create({
    data: { taskId, ...run },
    select: { id: true, sessionId: true, error: true, firedAt: true },
  });
}
