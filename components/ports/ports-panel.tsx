"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { useTRPC } from "@/components/trpc-provider";
import { usePorts } from "./use-ports";

/**
 * The Ports view: what listens in the project's workspace network (the agent's background jobs,
 * servers started in a terminal), with the process holding each port, and Stop.
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
  const stop = useMutation(
    trpc.ports.stop.mutationOptions({
      onSettled: () => void queryClient.invalidateQueries(trpc.ports.list.queryFilter({ projectId })),
    }),
  );
  const preview = useMutation(trpc.ports.preview.mutationOptions());
  /** Opens the port's preview in a new tab through a one-time link (the tab is opened at the click, so no blocker stops it). */
  const openPreview = (port: number) => {
    const tab = window.open("about:blank", "_blank");
    if (tab) tab.opener = null;
    preview.mutate(
      { projectId, port },
      {
        onSuccess: ({ url }) => {
          if (tab) tab.location.href = url;
        },
        onError: () => tab?.close(),
      },
    );
  };
  const list = ports.data?.ports ?? [];
  const error = stop.error ?? preview.error ?? ports.error;
  return (
    <div className="pane ports-panel" data-testid="ports-panel">
      <div className="terminal-tabs">{header}</div>
      {error && (
        <p className="ports-error" role="alert">
          {error.message}
        </p>
      )}
      {ports.data && !ports.data.available ? (
        <div className="center-message">
          This server gives workspaces no network of their own (no bubblewrap, or not running as root), so it cannot
          tell which ports they listen on.
        </div>
      ) : list.length === 0 ? (
        <div className="center-message" data-testid="ports-empty">
          Nothing listens in this workspace. A server started in a terminal or by the agent (for example `npm run dev`)
          shows here.
        </div>
      ) : (
        <table className="ports-table">
          <thead>
            <tr>
              <th>Port</th>
              <th>Process</th>
              <th>Listens on</th>
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
                <td className="ports-actions">
                  <button
                    type="button"
                    className="btn btn-ghost btn-sm"
                    onClick={() => openPreview(port.port)}
                    aria-label={`Open a preview of port ${port.port}`}
                  >
                    Open preview
                  </button>
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
    </div>
  );
}
