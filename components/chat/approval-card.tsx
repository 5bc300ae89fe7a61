"use client";

import { useMutation } from "@tanstack/react-query";
import { useRef, useState, type KeyboardEvent } from "react";
import { EditPreview } from "@/components/chat/edit-preview";
import { shellCall, toolDisplayName, webFetchCall } from "@/lib/tool-call-shapes";
import { plannedChanges } from "@/components/chat/tool-display";
import { useTRPC } from "@/components/trpc-provider";
import { errorMessage } from "@/components/ui/error-message";

type ApprovalCardProps = {
  projectId: string;
  /** The session asking: its edits are previewed against its own tree (a branch session's worktree). */
  sessionId: string;
  projectName: string;
  approvalId: string;
  toolName: string;
  input: unknown;
  /** Why it asks; shown when it is more than the mode's routine (a guard's reason, a tool's own). */
  reason?: string;
  /** Every command the call will run, when its input does not show them (a workflow's `run` steps). */
  commands?: string[];
  canWrite: boolean;
};

/**
 * What a waiting call will do, exactly, and the three answers. Keys while focus is in the card
 * (outside a text field): Y approves, A approves always in this session, N opens the rejection
 * feedback; in the feedback, Enter rejects and Escape goes back.
 */
export function ApprovalCard({
  projectId,
  sessionId,
  projectName,
  approvalId,
  toolName,
  input,
  reason,
  commands,
  canWrite,
}: ApprovalCardProps) {
  const trpc = useTRPC();
  const respond = useMutation(trpc.approval.respond.mutationOptions());
  const [rejecting, setRejecting] = useState(false);
  const [feedback, setFeedback] = useState("");
  const feedbackRef = useRef<HTMLTextAreaElement>(null);

  const answer = (decision: "approve" | "approve_always" | "reject") =>
    respond.mutate({
      approvalId,
      decision,
      ...(decision === "reject" && feedback.trim() ? { feedback: feedback.trim() } : {}),
    });

  const startRejecting = () => {
    setRejecting(true);
    requestAnimationFrame(() => feedbackRef.current?.focus());
  };

  const onKeyDown = (event: KeyboardEvent) => {
    if (!canWrite || respond.isPending || event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target as HTMLElement;
    if (target.tagName === "TEXTAREA" || target.tagName === "INPUT") return;
    const key = event.key.toLowerCase();
    if (key === "y") answer("approve");
    else if (key === "a") answer("approve_always");
    else if (key === "n") startRejecting();
    else return;
    event.preventDefault();
  };

  return (
    <div
      className="approval"
      data-testid="approval-card"
      data-approval-id={approvalId}
      tabIndex={-1}
      onKeyDown={onKeyDown}
      role="group"
      aria-label="Waiting for approval"
    >
      <div className="approval-title" data-testid="approval-title">
        Waiting for approval · {toolDisplayName(toolName)}
      </div>
      {reason && (
        <p className="approval-reason" data-testid="approval-reason">
          {reason}
        </p>
      )}
      <WhatWillHappen
        projectId={projectId}
        sessionId={sessionId}
        projectName={projectName}
        approvalId={approvalId}
        toolName={toolName}
        input={input}
      />
      {commands && <PlannedCommands commands={commands} />}
      {!canWrite ? (
        <p className="hint">Someone with write access to this project has to answer.</p>
      ) : rejecting ? (
        <div className="approval-reject">
          <textarea
            ref={feedbackRef}
            className="input textarea"
            rows={2}
            placeholder="What should the agent do instead? (optional, sent to the model)"
            value={feedback}
            onChange={(e) => setFeedback(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === "Enter" && !e.shiftKey) {
                e.preventDefault();
                answer("reject");
              } else if (e.key === "Escape") {
                e.stopPropagation();
                setRejecting(false);
              }
            }}
            data-testid="reject-feedback"
            aria-label="Feedback for the agent"
          />
          <div className="row">
            <button
              type="button"
              className="btn btn-danger btn-sm"
              onClick={() => answer("reject")}
              disabled={respond.isPending}
              data-testid="reject-confirm"
            >
              Reject
            </button>
            <button type="button" className="btn btn-ghost btn-sm" onClick={() => setRejecting(false)}>
              Back
            </button>
          </div>
        </div>
      ) : (
        <div className="row approval-actions">
          <button
            type="button"
            className="btn btn-primary btn-sm"
            onClick={() => answer("approve")}
            disabled={respond.isPending}
            data-testid="approve"
            aria-keyshortcuts="Y"
          >
            Approve <kbd>Y</kbd>
          </button>
          <button
            type="button"
            className="btn btn-sm"
            onClick={() => answer("approve_always")}
            disabled={respond.isPending}
            data-testid="approve-always"
            aria-keyshortcuts="A"
            title="Approve, and let calls like this one run without asking for the rest of this session"
          >
            Always in this session <kbd>A</kbd>
          </button>
          <button
            type="button"
            className="btn btn-sm"
            onClick={startRejecting}
            disabled={respond.isPending}
            data-testid="reject"
            aria-keyshortcuts="N"
          >
            Reject… <kbd>N</kbd>
          </button>
        </div>
      )}
      {respond.error && <p className="error-text">{errorMessage(respond.error)}</p>}
    </div>
  );
}

/** The commands a call will run (a workflow's steps), one per line, as the guard and the deny rules judged them. */
function PlannedCommands({ commands }: { commands: string[] }) {
  return (
    <div className="approval-detail">
      <div className="term-output" data-testid="approval-commands">
        {commands.length === 0 ? (
          <div className="term-command">No shell commands.</div>
        ) : (
          commands.map((command, i) => (
            <div key={i} className="term-command" data-testid="approval-command">
              <span className="term-prompt">$</span> {command}
            </div>
          ))
        )}
      </div>
    </div>
  );
}

function WhatWillHappen({
  projectId,
  sessionId,
  projectName,
  approvalId,
  toolName,
  input,
}: {
  projectId: string;
  sessionId: string;
  projectName: string;
  approvalId: string;
  toolName: string;
  input: unknown;
}) {
  const changes = plannedChanges(toolName, input);
  if (changes) {
    return (
      <>
        {changes.map((change) => (
          <EditPreview
            key={change.path}
            projectId={projectId}
            sessionId={sessionId}
            approvalId={approvalId}
            change={change}
          />
        ))}
      </>
    );
  }
  const shell = toolName === shellCall.name ? shellCall.input.safeParse(input).data : undefined;
  if (shell) {
    return (
      <div className="approval-detail">
        <div className="term-output">
          <div className="term-command" data-testid="approval-command">
            <span className="term-prompt">$</span> {shell.command}
          </div>
        </div>
        <dl className="facts">
          <dt>Folder</dt>
          <dd data-testid="approval-folder">
            The session&apos;s shell in {projectName} (it starts at the project root; a cd carries over)
          </dd>
          {shell.run_in_background && (
            <>
              <dt>Runs</dt>
              <dd>In the background</dd>
            </>
          )}
          {shell.timeout && (
            <>
              <dt>Timeout</dt>
              <dd>{shell.timeout} s</dd>
            </>
          )}
        </dl>
      </div>
    );
  }
  const fetch = toolName === webFetchCall.name ? webFetchCall.input.safeParse(input).data : undefined;
  if (fetch) {
    return (
      <dl className="facts approval-detail">
        <dt>URL</dt>
        <dd>
          <code data-testid="approval-url">{fetch.url}</code>
        </dd>
        {fetch.prompt && (
          <>
            <dt>Asks</dt>
            <dd>{fetch.prompt}</dd>
          </>
        )}
      </dl>
    );
  }
  return <pre className="tool-text approval-detail">{JSON.stringify(input, null, 2)}</pre>;
}
