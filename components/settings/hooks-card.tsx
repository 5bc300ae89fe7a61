"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/components/trpc-provider";
import { errorMessage } from "@/components/ui/error-message";

/**
 * The repository's hooks file (.tandem/hooks.json): what it holds now and whether it runs. Anyone
 * who can push to the repository can change the file, so its hooks run only once a project admin
 * approved exactly this text; a change waits for approval again.
 */
export function HooksCard({ projectId, canEdit }: { projectId: string; canEdit: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const hooks = useQuery(trpc.agent.hooks.queryOptions({ projectId }));
  const [problem, setProblem] = useState<string | null>(null);
  const refresh = () => void queryClient.invalidateQueries(trpc.agent.hooks.queryFilter());
  const onError = (e: unknown) => setProblem(errorMessage(e));
  const approve = useMutation(
    trpc.agent.approveHooks.mutationOptions({ onSuccess: () => setProblem(null), onError, onSettled: refresh }),
  );
  const revoke = useMutation(trpc.agent.revokeHooks.mutationOptions({ onError, onSettled: refresh }));
  const data = hooks.data;

  return (
    <section className="card settings-card" data-testid="hooks-card">
      <div className="section-title">
        <h2>Hooks</h2>
        <span className="hint">
          Commands <code>.tandem/hooks.json</code> runs before and after the agent&apos;s tool calls, in the sandbox,
          without network or secrets.
        </span>
      </div>
      <p className="server-detail" data-testid="hooks-state">
        {!data
          ? "Loading…"
          : data.state === "none"
            ? "This project has no .tandem/hooks.json."
            : data.state === "invalid"
              ? data.problem
              : data.state === "approved"
                ? "Approved: these hooks run."
                : data.changedSinceApproval
                  ? "The file changed since it was approved: its hooks do not run until it is approved again."
                  : "Not approved: these hooks do not run until a project admin approves them."}
      </p>
      {data?.text && (
        <pre className="hooks-file" data-testid="hooks-text">
          {data.text}
        </pre>
      )}
      {problem && (
        <div className="error-text" role="alert">
          {problem}
        </div>
      )}
      {canEdit && data && (
        <div className="row">
          {data.state === "unapproved" && (
            <button
              type="button"
              className="btn btn-primary"
              data-testid="approve-hooks"
              disabled={approve.isPending}
              onClick={() => approve.mutate({ projectId, digest: data.digest })}
            >
              Approve these hooks
            </button>
          )}
          {(data.state === "approved" || data.changedSinceApproval) && (
            <button
              type="button"
              className="btn"
              data-testid="revoke-hooks"
              disabled={revoke.isPending}
              onClick={() => revoke.mutate({ projectId })}
            >
              Turn hooks off
            </button>
          )}
        </div>
      )}
    </section>
  );
}
