"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useAccountStatus } from "@/components/auth/use-account";
import { useTRPC } from "@/components/trpc-provider";
import { errorMessage } from "@/components/ui/error-message";
import { openSessionHref } from "@/components/settings/open-session";

/** A time on the clock of the zone the task was scheduled in (its creator's), with the zone's name. */
const when = (d: Date | string | null, timeZone: string) =>
  d
    ? new Date(d).toLocaleString(undefined, {
        year: "numeric",
        month: "short",
        day: "numeric",
        hour: "numeric",
        minute: "2-digit",
        timeZone,
        timeZoneName: "short",
      })
    : "—";

/** Tasks the agent scheduled (schedule_task): when they run next, their runs' sessions, pause / resume / cancel. */
export function SchedulesCard({ projectId, canEdit }: { projectId: string; canEdit: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  // A paused task resumes only by its creator (its runs act as them, with their secrets): the server refuses anyone else.
  const me = useAccountStatus().data?.user?.id;
  const schedules = useQuery(trpc.extensions.schedules.queryOptions({ projectId }, { refetchInterval: 5_000 }));
  const options = { onSettled: () => void queryClient.invalidateQueries(trpc.extensions.schedules.queryFilter()) };
  const pause = useMutation(trpc.extensions.pauseSchedule.mutationOptions(options));
  const resume = useMutation(trpc.extensions.resumeSchedule.mutationOptions(options));
  const cancel = useMutation(trpc.extensions.cancelSchedule.mutationOptions(options));
  const error = pause.error ?? resume.error ?? cancel.error ?? schedules.error;

  return (
    <section className="card settings-card" data-testid="schedules-card">
      <div className="section-title">
        <h2>Scheduled tasks</h2>
        <span className="hint">
          Created by the agent with schedule_task, after someone approved. Each run is a new session.
        </span>
      </div>
      {error && <div className="error-text">{errorMessage(error)}</div>}
      {!schedules.data ? (
        <p className="hint">Loading…</p>
      ) : schedules.data.length === 0 ? (
        <p className="hint">
          No scheduled tasks. Ask the agent, e.g. “every weekday at 9, summarize yesterday’s commits”.
        </p>
      ) : (
        <ul className="item-list">
          {schedules.data.map((task) => (
            <li key={task.id} data-testid="schedule-row" data-status={task.status}>
              <div className="item-main">
                <span className="item-title">{task.description}</span>
                <span className="item-sub">
                  {task.cron ? `${task.timeExpression} (cron ${task.cron}, ${task.timezone})` : task.timeExpression} ·
                  next: {task.status === "active" ? when(task.nextRunAt, task.timezone) : "—"}
                </span>
                {task.runs.length > 0 && (
                  <span className="item-sub">
                    Runs:{" "}
                    {task.runs.slice(0, 5).map((run, i) => (
                      <span key={run.id}>
                        {i > 0 && ", "}
                        {run.sessionId ? (
                          <Link {...openSessionHref(projectId, run.sessionId)}>
                            {when(run.firedAt, task.timezone)}
                            {run.sessionStatus === "waiting_approval" && " (waits for approval)"}
                          </Link>
                        ) : (
                          <span className="error-text" title={run.error ?? ""}>
                            {when(run.firedAt, task.timezone)} failed
                          </span>
                        )}
                      </span>
                    ))}
                  </span>
                )}
              </div>
              <span className="chip">{task.status}</span>
              {canEdit && task.status === "active" && (
                <button
                  type="button"
                  className="btn btn-sm"
                  onClick={() => pause.mutate({ projectId, taskId: task.id })}
                >
                  Pause
                </button>
              )}
              {canEdit && task.status === "paused" && task.createdById === me && (
                <button
                  type="button"
                  className="btn btn-sm"
                  onClick={() => resume.mutate({ projectId, taskId: task.id })}
                  data-testid="schedule-resume"
                >
                  Resume
                </button>
              )}
              {canEdit && task.status === "paused" && task.createdById !== me && (
                <span className="hint" data-testid="schedule-resume-by-creator">
                  Its creator can resume it
                </span>
              )}
              {canEdit && (task.status === "active" || task.status === "paused") && (
                <button
                  type="button"
                  className="btn btn-sm btn-danger"
                  onClick={() => cancel.mutate({ projectId, taskId: task.id })}
                >
                  Cancel
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
