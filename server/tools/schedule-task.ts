import { z } from "zod";
import { defineTool, type ToolContext } from "./define-tool";
import { failure, ok } from "./result";
import { parseScheduleTime, ScheduleTimeError } from "./schedule-time";

// schedule_task: runs a prompt later, or on a recurrence, as a new session in this project.
// Every call asks a person first. The scheduler keeps the task as a durable job (pg-boss), so it
// survives restarts and runs once even when several servers share the database.

export type ScheduledTaskInfo = {
  id: string;
  description: string;
  nextRunAt: Date | null;
  cron: string | null;
  timezone: string;
};
export type TaskScheduler = {
  now(): Date;
  schedule(
    ctx: Pick<ToolContext, "projectId" | "sessionId" | "userId" | "timeZone">,
    input: { taskPayload: string; timeExpression: string; description: string },
  ): Promise<ScheduledTaskInfo>;
};

// Made once: the tool is made anew for each turn, its schema (and the model's JSON schema of it) is not.
const SCHEDULE_INPUT = z.object({
  taskPayload: z.string().min(1).max(20_000).describe("The prompt for the scheduled run."),
  timeExpression: z.string().min(1).max(200),
  humanReadableDescription: z.string().min(1).max(300).describe("One line people will see in the schedule list."),
});

export function scheduleTaskTool(scheduler: TaskScheduler) {
  return defineTool({
    name: "schedule_task",
    onDemand: "always",
    kind: "agent",
    approval: "always",
    description:
      "Schedule an agent task to run later or repeatedly, each run as a new session in this project (people see it in the " +
      "project settings, where they can pause or cancel it). `taskPayload` is the prompt the future agent gets: make it " +
      'self-contained. `timeExpression`: a time ("tomorrow at noon", "in 2 hours"), a recurrence ("every weekday at 9", ' +
      '"every 30 minutes") or cron ("0 9 * * 1-5"), read in the time zone of the person you are talking to (the result names it). ' +
      "A person approves every schedule.",
    input: SCHEDULE_INPUT,
    describe: (i) => `Schedule "${i.humanReadableDescription}" (${i.timeExpression})`,
    async execute(i, ctx) {
      try {
        parseScheduleTime(i.timeExpression, scheduler.now(), ctx.timeZone);
      } catch (error) {
        if (error instanceof ScheduleTimeError) return failure("INVALID_INPUT", error.message);
        throw error;
      }
      const task = await scheduler.schedule(ctx, {
        taskPayload: i.taskPayload,
        timeExpression: i.timeExpression,
        description: i.humanReadableDescription,
      });
      const next = task.nextRunAt ? localTime(task.nextRunAt, task.timezone) : "(not queued)";
      const when = task.cron
        ? `recurring (cron \`${task.cron}\` in ${task.timezone}), next run ${next}`
        : `once at ${next}`;
      return ok(`Scheduled task ${task.id}: "${task.description}", ${when}.`, undefined, { taskId: task.id });
    },
  });
}

/** "2026-11-25 09:00 (America/New_York, 14:00 UTC)": the person's clock first, UTC beside it. */
function localTime(at: Date, timeZone: string): string {
  const format = (zone: string, withDate: boolean) =>
    new Intl.DateTimeFormat("sv-SE", {
      timeZone: zone,
      ...(withDate ? { dateStyle: "short" } : {}),
      timeStyle: "short",
      hourCycle: "h23",
    }).format(at);
  return timeZone === "UTC"
    ? `${format("UTC", true)} UTC`
    : `${format(timeZone, true)} (${timeZone}, ${format("UTC", false)} UTC)`;
}
