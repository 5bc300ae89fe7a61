"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/components/trpc-provider";
import { errorMessage } from "@/components/ui/error-message";

/** Project tool discovery: a command that prints function declarations, and the command that runs them. */
export function DiscoveryCard({ projectId, canEdit }: { projectId: string; canEdit: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const settings = useQuery(trpc.extensions.settings.queryOptions({ projectId }));
  const status = useQuery(trpc.extensions.status.queryOptions({ projectId }, { refetchInterval: 3_000 }));
  const [draft, setDraft] = useState<{ discovery: string; call: string } | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const current = draft ?? {
    discovery: settings.data?.toolDiscoveryCommand ?? "",
    call: settings.data?.toolCallCommand ?? "",
  };
  const refresh = () => {
    void queryClient.invalidateQueries(trpc.extensions.settings.queryFilter());
    void queryClient.invalidateQueries(trpc.extensions.status.queryFilter());
  };
  const save = useMutation(
    trpc.extensions.updateSettings.mutationOptions({
      onSuccess: (result) => {
        if (!result.ok) return setProblem(result.problems.map((p) => `${p.path}: ${p.message}`).join("; "));
        setProblem(null);
        setDraft(null);
        refresh();
      },
      onError: (e) => setProblem(errorMessage(e)),
    }),
  );
  const rediscover = useMutation(trpc.extensions.rediscover.mutationOptions({ onSettled: refresh }));
  const discovery = status.data?.discovery;

  return (
    <section className="card settings-card" data-testid="discovery-card">
      <div className="section-title">
        <h2>Project tool discovery</h2>
        <span className="hint">Runs at the project root, in the sandbox.</span>
      </div>
      <div className="command-fields">
        <label className="field">
          <span>Discovery command (prints a JSON array of function declarations)</span>
          <input
            className="input"
            data-testid="discovery-command"
            value={current.discovery}
            readOnly={!canEdit}
            placeholder="./tools/discover.sh"
            onChange={(e) => setDraft({ ...current, discovery: e.target.value })}
          />
        </label>
        <label className="field">
          <span>Call command (gets the tool name; arguments as JSON on stdin)</span>
          <input
            className="input"
            data-testid="call-command"
            value={current.call}
            readOnly={!canEdit}
            placeholder="./tools/call.sh"
            onChange={(e) => setDraft({ ...current, call: e.target.value })}
          />
        </label>
      </div>
      {problem && (
        <div className="error-text" role="alert">
          {problem}
        </div>
      )}
      <div className="row">
        {canEdit && (
          <button
            type="button"
            className="btn btn-primary"
            disabled={draft === null || save.isPending}
            onClick={() =>
              save.mutate({ projectId, toolDiscoveryCommand: current.discovery, toolCallCommand: current.call })
            }
          >
            Save
          </button>
        )}
        {discovery?.configured && (
          <button
            type="button"
            className="btn"
            disabled={rediscover.isPending}
            onClick={() => rediscover.mutate({ projectId })}
          >
            {rediscover.isPending ? "Discovering…" : "Discover again"}
          </button>
        )}
        <span className="server-detail" data-testid="discovery-status">
          {!discovery?.configured ? (
            "Not configured."
          ) : discovery.error ? (
            <span className="error-text">{discovery.error}</span>
          ) : (
            `${discovery.tools.length} tool${discovery.tools.length === 1 ? "" : "s"} discovered${discovery.tools.length ? `: ${discovery.tools.join(", ")}` : ""}`
          )}
        </span>
      </div>
    </section>
  );
}
