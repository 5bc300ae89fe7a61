"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { useAutoOpenPreview } from "@/components/preview/auto-open";
import { useOpenPreviewTab } from "@/components/preview/open-preview-tab";
import { usePreview } from "@/components/preview/preview-context";
import { useTRPC } from "@/components/trpc-provider";
import { PreviewLinks } from "./preview-links";
import { usePorts } from "./use-ports";

/**
 * The Ports view: what listens in the project's workspace network (the agent's background jobs,
 * servers started in a terminal), with the process holding each port, who may open its preview
 * (private, team, public links), the preview beside the editor or in a new tab, and Stop.
 */
export function PortsPanel({
  projectId,
  canWrite,
  header,
}: {
  projectId: string;
  canWrite: boolean;
  header: ReactNode;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const ports = usePorts(projectId);
  const preview = usePreview();
  const tab = useOpenPreviewTab(projectId);
  const [autoOpen, setAutoOpen] = useAutoOpenPreview();
  const refresh = () => void queryClient.invalidateQueries(trpc.ports.list.queryFilter({ projectId }));
  const stop = useMutation(trpc.ports.stop.mutationOptions({ onSettled: refresh }));
  const visibility = useMutation(trpc.ports.setVisibility.mutationOptions({ onSettled: refresh }));
  const list = ports.data?.ports ?? [];
  const error = stop.error ?? visibility.error ?? tab.error ?? ports.error;
  return (
    <div className="pane ports-panel" data-testid="ports-panel">
      <div className="terminal-tabs">
        {header}
        <span className="spacer" />
        <label
          className="ports-auto-open"
          title="When a terminal or the agent starts a server, show its preview beside the editor"
        >
          <input
            type="checkbox"
            checked={autoOpen}
            onChange={(event) => setAutoOpen(event.target.checked)}
            data-testid="preview-auto-open"
          />
          Open previews by themselves
        </label>
      </div>
      {error && (
        <p className="ports-error" role="alert">
          {error.message}
        </p>
      )}
      <div className="ports-body">
        {ports.data && !ports.data.available ? (
          <div className="center-message">
            This server gives workspaces no network of their own (no bubblewrap, or not running as root), so it cannot
            tell which ports they listen on.
          </div>
        ) : list.length === 0 ? (
          <div className="center-message" data-testid="ports-empty">
            Nothing listens in this workspace. A server started in a terminal or by the agent (for example `npm run
            dev`) shows here.
          </div>
        ) : (
          <table className="ports-table">
            <thead>
              <tr>
                <th>Port</th>
                <th>Process</th>
                <th>Listens on</th>
                <th>Visibility</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {list.map((port) => (
                <tr key={port.port} data-testid={`port-${port.port}`}>
                  <td className="ports-number">{port.port}</td>
                  <td className="ports-process" title={port.process ?? undefined}>
                    {port.process ?? <span className="muted">unknown</span>}
                  </td>
                  <td>{port.address === "loopback" ? "loopback" : "all addresses"}</td>
                  <td>
                    {canWrite ? (
                      <select
                        className="input ports-visibility"
                        aria-label={`Who may open port ${port.port}`}
                        value={port.visibility}
                        disabled={visibility.isPending}
                        onChange={(event) =>
                          visibility.mutate({ projectId, port: port.port, visibility: event.target.value })
                        }
                      >
                        <option value="private" title="The project's owners, admins and members">
                          Private
                        </option>
                        <option value="team" title="Everyone in the project's team, viewers too">
                          Team
                        </option>
                      </select>
                    ) : port.visibility === "team" ? (
                      "Team"
                    ) : (
                      "Private"
                    )}
                  </td>
                  <td className="ports-actions">
                    {port.canOpen && (
                      <>
                        <button
                          type="button"
                          className="btn btn-ghost btn-sm"
                          onClick={() => preview.open(port.port)}
                          aria-label={`Open a preview of port ${port.port}`}
                        >
                          Open preview
                        </button>
                        <button
                          type="button"
                          className="icon-btn"
                          title="Open in a new tab"
                          onClick={() => tab.open(port.port)}
                          aria-label={`Open port ${port.port} in a new tab`}
                        >
                          ↗
                        </button>
                      </>
                    )}
                    {canWrite && (
                      <button
                        type="button"
                        className="btn btn-ghost btn-sm"
                        disabled={stop.isPending}
                        onClick={() => stop.mutate({ projectId, port: port.port })}
                        aria-label={`Stop the process on port ${port.port}`}
                      >
                        Stop
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {canWrite && <PreviewLinks projectId={projectId} ports={list.map((p) => p.port)} />}
      </div>
    </div>
  );
}
