"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { TranscriptItem } from "@/lib/session-transcript";
import { useTRPC } from "@/components/trpc-provider";
import { errorMessage } from "@/components/ui/error-message";

type NetworkItem = Extract<TranscriptItem, { kind: "network" }>;

/**
 * "Allow <host> for this project?": the project's network policy refused a host during a tool call
 * (the sandbox's egress proxy for a command, Tandem's server for web_fetch).
 * The project's admins allow it here (the session records who did); everyone else sees who may.
 */
export function NetworkDeniedCard({
  item,
  projectId,
  sessionId,
  canAllow,
}: {
  item: NetworkItem;
  projectId: string;
  sessionId: string;
  canAllow: boolean;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const allow = useMutation(
    trpc.network.allowHost.mutationOptions({
      onSuccess: () => void queryClient.invalidateQueries(trpc.network.settings.queryFilter({ projectId })),
    }),
  );
  const allowed = item.allowedBy !== undefined;

  return (
    <div
      className={allowed ? "question answered network-denied" : "question network-denied"}
      data-testid="network-denied-card"
      data-host={item.host}
      data-allowed={allowed || undefined}
      role="group"
      aria-label="Network access refused"
    >
      <div className="approval-title">Network</div>
      {allowed ? (
        <p className="question-text" data-testid="network-allowed">
          <code>{item.host}</code> allowed for this project by {item.allowedBy!.name}.
        </p>
      ) : (
        <>
          <p className="question-text">
            The project&apos;s network policy refused a connection to <code>{item.host}</code>. Allow{" "}
            <code>{item.host}</code> for this project?
          </p>
          {canAllow ? (
            <div className="row approval-actions">
              <button
                type="button"
                className="btn btn-primary btn-sm"
                data-testid="network-allow"
                disabled={allow.isPending}
                onClick={() => allow.mutate({ projectId, host: item.host, sessionId })}
              >
                Allow {item.host}
              </button>
              <span className="hint">
                Every terminal, agent command and web_fetch of this project may then reach it.
              </span>
            </div>
          ) : (
            <p className="hint" data-testid="network-ask-admin">
              Only the project&apos;s owners and admins can allow a host (Network in the project settings).
            </p>
          )}
        </>
      )}
      {allow.error && <p className="error-text">{errorMessage(allow.error)}</p>}
    </div>
  );
}
