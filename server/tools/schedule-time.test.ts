import { describe, expect, it } from "vitest";
import { parseScheduleTime, ScheduleTimeError } from "./schedule-time";

const now = new Date("2026-11-23T10:00:00Z"); // a Monday

describe("parseScheduleTime", () => {
  it("reads one-off natural-language times", () => {
    expect(parseScheduleTime("tomorrow at noon", now)).toEqual({ kind: "once", at: new Date("2026-11-24T12:00:00Z") });
    expect(parseScheduleTime("in 2 hours", now)).toEqual({ kind: "once", at: new Date("2026-11-23T12:00:00Z") });
  });

  it("turns recurrences into cron", () => {
    expect(parseScheduleTime("every weekday at 9", now)).toMatchObject({
      kind: "recurring",
      cron: "0 9 * * 1-5",
      next: new Date("2026-11-24T09:00:00Z"),
    });
    expect(parseScheduleTime("every monday at 10:30", now)).toMatchObject({
      cron: "30 10 * * 1",
      next: new Date("2026-11-23T10:30:00Z"),
    });
    expect(parseScheduleTime("every 15 minutes", now)).toMatchObject({ cron: "*/15 * * * *" });
    expect(parseScheduleTime("every day at 5pm", now)).toMatchObject({ cron: "0 17 * * *" });
  });

  it("accepts cron and refuses what it cannot read", () => {
    expect(parseScheduleTime("0 9 * * 1-5", now)).toMatchObject({ kind: "recurring", cron: "0 9 * * 1-5" });
    expect(() => parseScheduleTime("whenever you like", now)).toThrow(ScheduleTimeError);
    expect(() => parseScheduleTime("every blue moon", now)).toThrow(/every weekday at 9/);
    expect(() => parseScheduleTime("61 * * * *", now)).toThrow(/not a valid cron/);
  });
});
