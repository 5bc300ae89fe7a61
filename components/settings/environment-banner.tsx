"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useSubscription } from "@trpc/tanstack-react-query";
import Link from "next/link";
import { useTRPC } from "@/components/trpc-provider";
import { errorMessage } from "@/components/ui/error-message";

/**
 * On the project's page: the setup script running, or its failure with the exit code, a link to
 * its output (the Environment settings) and a retry for writers. Nothing once it succeeded.
 */
export function EnvironmentBanner({ projectId, canRun }: { projectId: string; canRun: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const status = useQuery(trpc.environment.get.queryOptions({ projectId }));
  const refresh = () => void queryClient.invalidateQueries(trpc.environment.get.queryFilter({ projectId }));
  useSubscription(
    trpc.environment.output.subscriptionOptions(
      { projectId },
      { onData: (event) => event.kind !== "output" && refresh() },
    ),
  );
  const retry = useMutation(trpc.environment.rebuild.mutationOptions({ onSettled: refresh }));
  const run = status.data?.run;
  if (!run || run.status === "succeeded") return null;
  const from = run.source === "settings" ? "the settings' setup script" : ".tandem/setup.sh";
  const details = (
    <Link href={`/p/${projectId}/settings#environment`} prefetch={false} data-testid="environment-details">
      Show output
    </Link>
  );
  if (run.status === "running")
    return (
      <div className="banner banner-info" role="status" data-testid="environment-banner" data-status="running">
        <span className="banner-text">
          Setting up the environment ({from})… {details}
        </span>
      </div>
    );
  return (
    <div className="banner banner-warning" role="alert" data-testid="environment-banner" data-status="failed">
      <span className="banner-text">
        The environment&apos;s setup ({from}) failed with exit code {run.exitCode ?? "unknown"}
        {run.endedAt ? ` at ${new Date(run.endedAt).toLocaleTimeString()}` : ""}: what it installs may be missing.{" "}
        {details}
        {retry.error ? ` ${errorMessage(retry.error)}` : ""}
      </span>
      {canRun && (
        <button
          type="button"
          className="btn btn-sm"
          data-testid="environment-retry"
          disabled={retry.isPending}
          onClick={() => retry.mutate({ projectId })}
        >
          Retry
        </button>
      )}
    </div>
  );
}
