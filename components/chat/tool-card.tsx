"use client";

import { useState } from "react";
import type { TranscriptItem } from "@/lib/session-transcript";
import { ApprovalCard } from "@/components/chat/approval-card";
import { TerminalOutput } from "@/components/chat/terminal-output";
import { ToolOutput } from "@/components/chat/tool-output";
import { SessionImages } from "@/components/chat/session-images";
import { parseDisplay, type ToolKind } from "@/lib/tool-display";
import { toolTitle } from "@/components/chat/tool-display";
import { toolDisplayName } from "@/lib/tool-call-shapes";

type ToolItem = Extract<TranscriptItem, { kind: "tool" }>;

const STATUS_LABEL: Record<ToolItem["status"], string> = {
  running: "Running",
  awaiting_approval: "Waiting for approval",
  done: "Done",
  failed: "Failed",
  rejected: "Rejected",
};

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** Calls that only look (lib/tool-display.ts kinds): their cards start closed. */
const QUIET_KINDS = new Set<string>(["think", "read", "search"] satisfies ToolKind[]);

/** Open at first when there is something to look at or decide: a diff, a failure, a command running. */
function openByDefault(item: ToolItem): boolean {
  if (item.status === "awaiting_approval" || item.status === "failed" || item.status === "rejected") return true;
  // A screenshot (the browser's) or an image read is something to look at, whatever the kind.
  if (item.result?.images?.length) return true;
  if (QUIET_KINDS.has(item.toolKind)) return false;
  if (item.status === "running") return item.toolKind === ("execute" satisfies ToolKind);
  const kind = parseDisplay(item.result?.display)?.kind;
  return kind === "diff" || kind === "terminal";
}

type ToolCardProps = {
  item: ToolItem;
  live?: { output: string; status?: string };
  sessionId: string;
  projectId: string;
  projectName: string;
  canWrite: boolean;
};

/** One tool call: what it does in words, its status and duration, and its output on demand. */
export function ToolCard({ item, live, sessionId, projectId, projectName, canWrite }: ToolCardProps) {
  const [open, setOpen] = useState<boolean | null>(null);
  const expanded = item.status === "awaiting_approval" || (open ?? openByDefault(item));
  const bodyId = `tool-body-${item.toolCallId}`;

  return (
    <div
      className={`tool-card status-${item.status}`}
      data-testid="tool-card"
      data-tool={item.toolName}
      data-status={item.status}
    >
      <button
        type="button"
        className="tool-head"
        aria-expanded={expanded}
        aria-controls={bodyId}
        onClick={() => setOpen(!expanded)}
      >
        <span className={`tool-dot ${item.status}`} aria-hidden />
        <span className="tool-name" data-testid="tool-name" title={item.toolName}>
          {toolDisplayName(item.toolName)}
        </span>
        <span className="tool-title" data-testid="tool-title">
          {toolTitle(item)}
        </span>
        <span className="spacer" />
        <span className="tool-status">
          {STATUS_LABEL[item.status]}
          {item.result && ` · ${formatDuration(item.result.durationMs)}`}
        </span>
        <span className="twisty" aria-hidden>
          {expanded ? "▾" : "▸"}
        </span>
      </button>
      {expanded && (
        <div className="tool-body" id={bodyId}>
          {item.status === "awaiting_approval" && item.approvalId ? (
            <ApprovalCard
              projectId={projectId}
              sessionId={sessionId}
              projectName={projectName}
              approvalId={item.approvalId}
              toolName={item.toolName}
              input={item.input}
              reason={item.approvalReason}
              commands={item.approvalCommands}
              canWrite={canWrite}
            />
          ) : item.status === "running" ? (
            live?.output || live?.status ? (
              <TerminalOutput output={live.output} running />
            ) : (
              <div className="hint">{live?.status ?? "Running…"}</div>
            )
          ) : item.result ? (
            <>
              <ToolOutput result={item.result} />
              {item.result.images?.length ? <SessionImages sessionId={sessionId} images={item.result.images} /> : null}
            </>
          ) : null}
          {item.status === "rejected" && (
            <p className="hint" data-testid="tool-feedback">
              Rejected{item.resolvedBy ? ` by ${item.resolvedBy.name}` : ""}
              {item.feedback ? `: “${item.feedback}”` : "."}
            </p>
          )}
          {item.resolvedBy && item.status !== "rejected" && <p className="hint">Approved by {item.resolvedBy.name}.</p>}
        </div>
      )}
    </div>
  );
}
