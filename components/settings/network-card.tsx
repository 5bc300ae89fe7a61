"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useSubscription } from "@trpc/tanstack-react-query";
import { useState } from "react";
import { useTRPC } from "@/components/trpc-provider";
import { errorMessage } from "@/components/ui/error-message";
import { formatBytes } from "@/components/ui/format-bytes";

const POLICY_LABELS = {
  off: "Off: no network",
  "allow-list": "Allow-list: only the hosts below",
  open: "Open: any public host",
} as const;
type Policy = keyof typeof POLICY_LABELS;

/** The project's network policy (project admins edit it) and the egress proxy's connection log, live. */
export function NetworkCard({ projectId, canEdit }: { projectId: string; canEdit: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const settings = useQuery(trpc.network.settings.queryOptions({ projectId }));
  const log = useQuery(trpc.network.connections.queryOptions({ projectId, limit: 100 }));
  const [draft, setDraft] = useState<{ policy: Policy; hosts: string } | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  useSubscription(
    trpc.network.onConnection.subscriptionOptions(
      { projectId },
      { onData: () => void queryClient.invalidateQueries(trpc.network.connections.queryFilter({ projectId })) },
    ),
  );
  const current = draft ?? {
    policy: settings.data?.policy ?? "allow-list",
    hosts: (settings.data?.allowHosts ?? []).join("\n"),
  };
  const save = useMutation(
    trpc.network.update.mutationOptions({
      onSuccess: () => {
        setProblem(null);
        setDraft(null);
        void queryClient.invalidateQueries(trpc.network.settings.queryFilter({ projectId }));
      },
      onError: (e) => setProblem(errorMessage(e)),
    }),
  );
  const permitted = settings.data?.permitted ?? [];

  return (
    <section className="card settings-card" data-testid="network-card">
      <div className="section-title">
        <h2>Network</h2>
        <span className="hint">
          Terminals, the agent&apos;s shell, stdio MCP servers, discovery and git reach the network only through the
          egress proxy. Tandem&apos;s server follows the same policy for its own requests: web_fetch and @ mentions of
          URLs reach only the allowed hosts; with Off, web_search and remote MCP servers are refused too.
        </span>
      </div>
      <label className="field">
        <span>Policy</span>
        <select
          className="input"
          data-testid="network-policy"
          value={current.policy}
          disabled={!canEdit}
          onChange={(e) => setDraft({ ...current, policy: e.target.value as Policy })}
        >
          {(Object.keys(POLICY_LABELS) as Policy[]).map((p) => (
            <option key={p} value={p} disabled={!permitted.includes(p)}>
              {POLICY_LABELS[p]}
              {permitted.includes(p) ? "" : " (not permitted by the admin)"}
            </option>
          ))}
        </select>
      </label>
      <label className="field">
        <span>Allowed hosts, one per line (*.example.com allows its subdomains)</span>
        <textarea
          className="input network-hosts"
          rows={6}
          data-testid="network-hosts"
          value={current.hosts}
          readOnly={!canEdit}
          onChange={(e) => setDraft({ ...current, hosts: e.target.value })}
        />
      </label>
      {problem && (
        <div className="error-text" role="alert">
          {problem}
        </div>
      )}
      {canEdit && (
        <div className="row">
          <button
            type="button"
            className="btn btn-primary"
            data-testid="network-save"
            disabled={draft === null || save.isPending}
            onClick={() =>
              save.mutate({ projectId, policy: current.policy, allowHosts: current.hosts.split(/\s+/).filter(Boolean) })
            }
          >
            Save
          </button>
        </div>
      )}
      <h3>Connections</h3>
      {log.data?.length ? (
        <table className="network-log" data-testid="network-log">
          <thead>
            <tr>
              <th>When</th>
              <th>Host</th>
              <th>Result</th>
              <th>In / out</th>
              <th>From</th>
            </tr>
          </thead>
          <tbody>
            {log.data.map((c) => (
              <tr key={c.id} data-allowed={c.allowed} data-failed={c.allowed && c.reason !== null}>
                <td>{new Date(c.createdAt).toLocaleTimeString()}</td>
                <td>
                  {c.host}:{c.port}
                </td>
                {/* An allowed connection with a reason failed inside its tunnel (its TLS handshake). */}
                <td className={c.allowed && !c.reason ? "" : "error-text"} title={c.reason ?? undefined}>
                  {c.allowed ? (c.reason ? "failed" : "allowed") : "refused"}
                </td>
                <td>
                  {formatBytes(c.bytesIn)} / {formatBytes(c.bytesOut)}
                </td>
                <td>
                  {c.sourceKind} {c.sourceId.slice(0, 8)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p className="muted">No connections yet.</p>
      )}
    </section>
  );
}
