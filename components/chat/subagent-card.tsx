"use client";

import { useMutation } from "@tanstack/react-query";
import type { TranscriptItem } from "@/lib/session-transcript";
import { Markdown } from "@/components/chat/markdown";
import type { SubagentLive } from "@/components/chat/use-session-log";
import { useTRPC } from "@/components/trpc-provider";
import { errorMessage } from "@/components/ui/error-message";

type SubagentItem = Extract<TranscriptItem, { kind: "subagent" }>;

/** A delegated child in its parent's transcript: live while it runs (step, tool, last lines), cancellable on its own. */
export function SubagentCard({
  item,
  live,
  canWrite,
  onOpen,
}: {
  item: SubagentItem;
  live: SubagentLive | undefined;
  canWrite: boolean;
  onOpen(): void;
}) {
  const trpc = useTRPC();
  const cancel = useMutation(trpc.session.cancel.mutationOptions());
  const running = item.status === "running";
  const lastLines = live?.lines.trim().split("\n").slice(-6).join("\n");
  return (
    <div className={`tool-card subagent status-${item.status}`} data-testid="subagent-card" data-status={item.status}>
      <div className="tool-head static">
        <span
          className={`tool-dot ${item.status === "done" ? "done" : item.status === "failed" ? "failed" : "running"}`}
          aria-hidden
        />
        <span className="tool-title">
          Sub-agent {item.index + 1}: {item.prompt}
        </span>
        <span className="spacer" />
        <span className="tool-status" data-testid="subagent-status">
          {running
            ? live
              ? `Step ${Math.max(live.step, 1)}${live.tool ? ` · ${live.tool}` : ""}`
              : "Running"
            : item.status === "done"
              ? "Done"
              : "Failed"}
        </span>
        {running && canWrite && (
          <button
            type="button"
            className="btn btn-ghost btn-sm"
            disabled={cancel.isPending}
            onClick={() => cancel.mutate({ sessionId: item.childSessionId })}
            data-testid="cancel-subagent"
          >
            Cancel
          </button>
        )}
        <button type="button" className="btn btn-ghost btn-sm" onClick={onOpen} data-testid="open-subagent">
          Open
        </button>
      </div>
      {running && lastLines && (
        <pre className="subagent-lines" data-testid="subagent-lines">
          {lastLines}
        </pre>
      )}
      {cancel.error && <div className="error-text">{errorMessage(cancel.error)}</div>}
      {item.result && (
        <details className="tool-body">
          <summary>Result</summary>
          <Markdown text={item.result} />
        </details>
      )}
    </div>
  );
}
