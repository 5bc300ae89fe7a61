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
  runAt: Date | null;
  status: string;
  nextRunAt: Date | null;
  jobId: string | null;
  createdAt: Date;
};
export type ScheduledRunRow = { id: string; sessionId: string | null; error: string | null; firedAt: Date };

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
  runAt: true,
  status: true,
  nextRunAt: true,
  jobId: true,
  createdAt: true,
} as const;

export async function createScheduledTask(
  db: Db,
  data: Omit<ScheduledTaskRow, "id" | "status" | "jobId" | "createdAt" | "timezone"> & { timezone?: string },
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
): Promise<Array<ScheduledTaskRow & { runs: ScheduledRunRow[] }>> {
  return db.scheduledTask.findMany({
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
