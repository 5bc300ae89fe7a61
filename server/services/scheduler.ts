import PgBoss from "pg-boss";
import type { Db } from "@/server/db/client";
import * as tasks from "@/server/db/repositories/scheduled-tasks";
import type { ScheduledTaskRow } from "@/server/db/repositories/scheduled-tasks";
import { findSession } from "@/server/db/repositories/sessions";
import { activeRoleInProject } from "@/server/db/repositories/projects";
import type { TaskScheduler } from "@/server/tools/schedule-task";
import { nextCronTime, parseScheduleTime } from "@/server/tools/schedule-time";

// Scheduled agent tasks on pg-boss (a Postgres-backed queue in its own `pgboss` schema): each
// planned run is one job with a start time, so it survives restarts, and a job is handed to one
// worker only, so a run happens once even with several server instances. A recurring task's
// worker queues the next run after this one. Each run starts a new session in the project.

export const QUEUE = "tandem-scheduled-task";

type JobData = { taskId: string };
export type TaskRun = (task: ScheduledTaskRow) => Promise<{ sessionId: string }>;
export type Scheduler = ReturnType<typeof createScheduler>;

export class SchedulerError extends Error {}

export function createScheduler(options: {
  db: Db;
  databaseUrl: string;
  run: TaskRun;
  now?: () => Date;
  pollingIntervalSeconds?: number;
  log?: (line: string) => void;
}) {
  const { db } = options;
  const now = options.now ?? (() => new Date());
  const boss = new PgBoss({
    connectionString: options.databaseUrl,
    schema: "pgboss",
    max: 4,
    application_name: "tandem-scheduler",
  });
  boss.on("error", (error) => (options.log ?? console.error)(`scheduler: ${error.message}`));
  let started: Promise<void> | null = null;

  async function enqueue(task: ScheduledTaskRow, at: Date): Promise<ScheduledTaskRow> {
    const jobId = await boss.send(QUEUE, { taskId: task.id } satisfies JobData, { startAfter: at, retryLimit: 0 });
    return tasks.updateScheduledTask(db, task.id, { jobId, nextRunAt: at, status: "active" });
  }

  async function fire(taskId: string) {
    const task = await tasks.findScheduledTask(db, taskId);
    if (task?.status !== "active") return; // paused or cancelled after the job was queued
    const refused = await refusal(task);
    if (refused) {
      await tasks.recordScheduledRun(db, task.id, { sessionId: null, error: refused });
      await tasks.updateScheduledTask(db, task.id, { status: "paused", jobId: null, nextRunAt: null });
      return;
    }
    try {
      const { sessionId } = await options.run(task);
      await tasks.recordScheduledRun(db, task.id, { sessionId, error: null });
    } catch (error) {
      await tasks.recordScheduledRun(db, task.id, { sessionId: null, error: (error as Error).message.slice(0, 500) });
    }
    if (task.cron) await enqueue(task, nextCronTime(task.cron, now(), task.timezone));
    else await tasks.updateScheduledTask(db, task.id, { status: "done", nextRunAt: null, jobId: null });
  }

  /**
   * Why the task may not run now, or null: a run is a session written by whoever scheduled it, with
   * their own secrets and forge tokens, so it acts only while they may still run the agent here.
   */
  async function refusal(task: ScheduledTaskRow): Promise<string | null> {
    const role = await activeRoleInProject(db, task.projectId, task.createdById);
    if (role && role !== "viewer") return null;
    return (
      "Not run, and paused: the person who scheduled it can no longer run the agent in this project " +
      "(they left the team, are a viewer now, or their account is disabled). Cancel it, or ask the agent to schedule it again."
    );
  }

  async function mustFind(projectId: string, taskId: string) {
    const task = await tasks.findScheduledTask(db, taskId);
    if (!task || task.projectId !== projectId) throw new SchedulerError("No such scheduled task in this project.");
    return task;
  }

  async function dropJob(task: ScheduledTaskRow) {
    if (task.jobId) await boss.cancel(QUEUE, task.jobId).catch(() => {});
  }

  const scheduler = {
    start(): Promise<void> {
      started ??= (async () => {
        await boss.start();
        await boss.createQueue(QUEUE);
        await boss.work<JobData>(
          QUEUE,
          { pollingIntervalSeconds: options.pollingIntervalSeconds ?? 2, batchSize: 1 },
          async (jobs) => {
            for (const job of jobs) await fire(job.data.taskId);
          },
        );
      })();
      return started;
    },

    /**
     * At server start: starts the worker when there is something to run. pg-boss polls every
     * couple of seconds on a Postgres connection of its own (a backend of ~7-11 MB), so a server
     * without scheduled tasks does without it until one is scheduled (schedule and resume start it).
     * `always`: in a cluster an instance must also run the jobs of instances that died, whoever
     * scheduled them, so each starts its worker at once.
     */
    async boot(options: { always?: boolean } = {}) {
      if (options.always || (await tasks.hasActiveScheduledTasks(db))) await scheduler.start();
    },

    /** What the schedule_task tool uses. */
    tool: {
      now,
      async schedule(ctx, input) {
        await scheduler.start();
        const timezone = ctx.timeZone ?? "UTC";
        const when = parseScheduleTime(input.timeExpression, now(), timezone);
        // Runs keep the model of the session that scheduled them, not the server's default.
        const origin = await findSession(db, ctx.sessionId);
        const task = await tasks.createScheduledTask(db, {
          projectId: ctx.projectId,
          createdById: ctx.userId,
          originSessionId: ctx.sessionId,
          taskPayload: input.taskPayload,
          timeExpression: input.timeExpression,
          description: input.description,
          cron: when.kind === "recurring" ? when.cron : null,
          runAt: when.kind === "once" ? when.at : null,
          nextRunAt: null,
          timezone,
          model: origin?.model ?? null,
        });
        const queued = await enqueue(task, when.kind === "once" ? when.at : when.next);
        return {
          id: queued.id,
          description: queued.description,
          nextRunAt: queued.nextRunAt,
          cron: queued.cron,
          timezone: queued.timezone,
        };
      },
    } satisfies TaskScheduler,

    list: (projectId: string) => tasks.listScheduledTasks(db, projectId),

    async pause(projectId: string, taskId: string) {
      const task = await mustFind(projectId, taskId);
      if (task.status !== "active")
        throw new SchedulerError(`This task is ${task.status}; only an active task can be paused.`);
      await dropJob(task);
      return tasks.updateScheduledTask(db, task.id, { status: "paused", jobId: null, nextRunAt: null });
    },

    /**
     * Only the person who scheduled a task resumes it: it runs as them (their secrets in its shell,
     * their forge tokens behind its tools), so a teammate's resume would set it acting as someone
     * else on the teammate's word. Pausing and cancelling stay open to the team: they only stop it.
     */
    async resume(projectId: string, taskId: string, userId: string) {
      await scheduler.start();
      const task = await mustFind(projectId, taskId);
      if (task.createdById !== userId)
        throw new SchedulerError(
          "Only the person who scheduled it can resume this task: it runs as them, with their secrets. Ask them, or cancel it and schedule your own.",
        );
      if (task.status !== "paused")
        throw new SchedulerError(`This task is ${task.status}; only a paused task can be resumed.`);
      const at = task.cron
        ? nextCronTime(task.cron, now(), task.timezone)
        : task.runAt && task.runAt > now()
          ? task.runAt
          : new Date(now().getTime() + 1000);
      return enqueue(task, at);
    },

    async cancel(projectId: string, taskId: string) {
      const task = await mustFind(projectId, taskId);
      await dropJob(task);
      return tasks.updateScheduledTask(db, task.id, { status: "cancelled", jobId: null, nextRunAt: null });
    },

    async stop() {
      if (!started) return;
      await started.catch(() => {});
      await boss.stop({ graceful: true, timeout: 5_000, wait: true }).catch(() => {});
    },
  };
  return scheduler;
}
