import * as chrono from "chrono-node";
import { CronExpressionParser } from "cron-parser";

// When a scheduled task runs: a one-off natural-language time ("tomorrow at noon", "in 2 hours",
// read by chrono-node), a recurrence ("every weekday at 9", "every 15 minutes", turned into cron),
// or a cron expression ("0 9 * * 1-5", read by cron-parser). All times are in `timezone`.

export type ScheduleTime = { kind: "once"; at: Date } | { kind: "recurring"; cron: string; next: Date };

export class ScheduleTimeError extends Error {}

const CRON = /^(\S+\s+){4,5}\S+$/;
const DAYS: Record<string, string> = {
  day: "*",
  weekday: "1-5",
  weekend: "0,6",
  sunday: "0",
  monday: "1",
  tuesday: "2",
  wednesday: "3",
  thursday: "4",
  friday: "5",
  saturday: "6",
};

export function parseScheduleTime(expression: string, now: Date, timezone = "UTC"): ScheduleTime {
  const text = expression.trim().toLowerCase().replace(/\s+/g, " ");
  if (CRON.test(text) && /^[\d*/,\-?a-z ]+$/.test(text) && !/[a-z]{4,}/.test(text))
    return recurring(text, now, timezone);
  const every = /^every (.+)$/.exec(text);
  if (every) return recurring(recurrenceToCron(every[1]!, now, timezone), now, timezone);
  const parsed = chrono.parse(expression, { instant: now, timezone }, { forwardDate: true })[0];
  if (!parsed) {
    throw new ScheduleTimeError(
      `Could not read a time from "${expression}". Use e.g. "tomorrow at noon", "in 2 hours", "every weekday at 9" or cron "0 9 * * 1-5".`,
    );
  }
  const at = parsed.start.date();
  if (at.getTime() <= now.getTime())
    throw new ScheduleTimeError(`"${expression}" is in the past (${at.toISOString()}); give a future time.`);
  return { kind: "once", at };
}

/** Cron's next time after `after`, in `timezone`. */
export function nextCronTime(cron: string, after: Date, timezone = "UTC"): Date {
  return CronExpressionParser.parse(cron, { currentDate: after, tz: timezone }).next().toDate();
}

function recurring(cron: string, now: Date, timezone: string): ScheduleTime {
  try {
    return { kind: "recurring", cron, next: nextCronTime(cron, now, timezone) };
  } catch (error) {
    throw new ScheduleTimeError(`"${cron}" is not a valid cron expression: ${(error as Error).message}`);
  }
}

function recurrenceToCron(rest: string, now: Date, timezone: string): string {
  const interval = /^(\d+ )?(minute|hour)s?$/.exec(rest);
  if (interval) {
    const n = Number(interval[1] ?? 1);
    if (interval[2] === "minute") return n === 1 ? "* * * * *" : `*/${n} * * * *`;
    return n === 1 ? "0 * * * *" : `0 */${n} * * *`;
  }
  const daily =
    /^(day|weekday|weekend|sunday|monday|tuesday|wednesday|thursday|friday|saturday|morning|evening)s?(?: (?:at )?(.+))?$/.exec(
      rest,
    );
  if (!daily) {
    throw new ScheduleTimeError(
      `Could not read a recurrence from "every ${rest}". Use e.g. "every weekday at 9", "every monday at 10:30", "every 2 hours", or a cron expression.`,
    );
  }
  const [, unit, time] = daily;
  const days = unit === "morning" || unit === "evening" ? "*" : DAYS[unit!]!;
  let hour = unit === "evening" ? 18 : 9;
  let minute = 0;
  if (time) {
    const parsed = chrono.parse(`today at ${time}`, { instant: now, timezone })[0];
    if (!parsed) throw new ScheduleTimeError(`Could not read the time "${time}" in "every ${rest}".`);
    hour = parsed.start.get("hour") ?? hour;
    minute = parsed.start.get("minute") ?? 0;
  }
  return `${minute} ${hour} * * ${days}`;
}
