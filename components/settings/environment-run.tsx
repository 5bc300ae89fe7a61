"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useSubscription } from "@trpc/tanstack-react-query";
import { useEffect, useRef, useState } from "react";
import { useTRPC } from "@/components/trpc-provider";
import { errorMessage } from "@/components/ui/error-message";
import type { SetupRunState } from "@/lib/toolchains";

/**
 * The project's last setup run (succeeded, or failed with its exit code; when and how long; the
 * end of its output), its output live while it runs, and "Rebuild environment" for writers.
 */
export function EnvironmentRun({
  projectId,
  canRun,
  unsaved = false,
}: {
  projectId: string;
  canRun: boolean;
  /** The settings above have changes not saved yet (or being saved): a run now would use the old ones. */
  unsaved?: boolean;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const status = useQuery(trpc.environment.get.queryOptions({ projectId }));
  const [run, setRun] = useState<SetupRunState | null | undefined>(undefined);
  const refresh = () => void queryClient.invalidateQueries(trpc.environment.get.queryFilter({ projectId }));
  useSubscription(
    trpc.environment.output.subscriptionOptions(
      { projectId },
      {
        onData: (event) => {
          if (event.kind === "snapshot") setRun(event.run);
          else if (event.kind === "output")
            setRun((current) =>
              current ? { ...current, output: (current.output + event.text).slice(-16_000) } : current,
            );
          else {
            setRun(event.run);
            refresh();
          }
        },
      },
    ),
  );
  const rebuild = useMutation(
    trpc.environment.rebuild.mutationOptions({
      onSuccess: (started) => setRun(started),
      onSettled: refresh,
    }),
  );
  const shown = run === undefined ? status.data?.run : run;
  const hasScript = !!status.data?.settings.setupScript?.trim() || !!status.data?.repositoryScript;
  return (
    <div className="stack environment-run" data-testid="environment-run">
      <div className="row">
        <RunSummary run={shown ?? null} />
        {canRun && (
          <button
            type="button"
            className="btn"
            style={{ marginLeft: "auto" }}
            data-testid="environment-rebuild"
            disabled={rebuild.isPending || shown?.status === "running" || !hasScript || unsaved}
            title={
              unsaved
                ? "Save the changes first: the setup runs the saved script and versions."
                : hasScript
                  ? undefined
                  : "Set a setup script first, or add .tandem/setup.sh to the repository."
            }
            onClick={() => rebuild.mutate({ projectId })}
          >
            {shown?.status === "failed" ? "Retry setup" : "Rebuild environment"}
          </button>
        )}
      </div>
      {rebuild.error && (
        <div className="error-text" role="alert">
          {errorMessage(rebuild.error)}
        </div>
      )}
      {shown && <SetupOutput text={shown.output} running={shown.status === "running"} />}
    </div>
  );
}

function RunSummary({ run }: { run: SetupRunState | null }) {
  if (!run) return <span className="muted">The setup script has not run yet.</span>;
  const from = run.source === "settings" ? "settings" : ".tandem/setup.sh";
  const started = new Date(run.startedAt);
  if (run.status === "running")
    return (
      <span data-testid="environment-status" data-status="running">
        <span className="status-dot" data-status="connecting" /> Setting up ({from}), started{" "}
        {started.toLocaleTimeString()}…
      </span>
    );
  const seconds = run.endedAt ? Math.max(0, (new Date(run.endedAt).getTime() - started.getTime()) / 1000) : null;
  const took = seconds === null ? "" : ` in ${seconds < 10 ? seconds.toFixed(1) : Math.round(seconds)} s`;
  const when = run.endedAt ? new Date(run.endedAt).toLocaleString() : started.toLocaleString();
  return (
    <span data-testid="environment-status" data-status={run.status}>
      <span className="status-dot" data-status={run.status === "succeeded" ? "connected" : "failed"} />{" "}
      {run.status === "succeeded" ? "Setup succeeded" : `Setup failed with exit code ${run.exitCode ?? "unknown"}`}
      {took} ({from}, {when})
    </span>
  );
}

/** The run's output, scrolled to its end (where a failure says why) as it grows. */
function SetupOutput({ text, running }: { text: string; running: boolean }) {
  const ref = useRef<HTMLPreElement>(null);
  useEffect(() => {
    if (ref.current && text) ref.current.scrollTop = ref.current.scrollHeight;
  }, [text]);
  return (
    <pre className="setup-output" ref={ref} data-testid="environment-output">
      {text || (running ? "Waiting for output…" : "(no output)")}
    </pre>
  );
}
