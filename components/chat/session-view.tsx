"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { z } from "zod";
import { useSendMessage } from "@/components/chat/use-send-message";
import { useSessionCommands } from "@/components/chat/session-commands";
import { useMentions } from "@/components/chat/use-mentions";
import { RestoreDialog } from "@/components/review/restore-dialog";
import { createPortal } from "react-dom";
import type { Transcript } from "@/lib/session-transcript";
import { TodoList, type Todo } from "@/components/chat/todo-list";
import { Composer } from "@/components/chat/composer";
import { SessionTitle } from "@/components/chat/session-title";
import { transcriptKey, TranscriptItemView, type TranscriptContext } from "@/components/chat/transcript-item";
import { UsageCounter } from "@/components/chat/usage-counter";
import { ChangesButton } from "@/components/review/changes-button";
import { useSessionLog } from "@/components/chat/use-session-log";
import { JumpToLatest, VirtualList, type VirtualListHandle } from "@/components/ui/virtual-list";
import { useTRPC } from "@/components/trpc-provider";
import { useCommands } from "@/components/ui/commands";
import { errorMessage } from "@/components/ui/error-message";
import { PresenceAvatars, TypingIndicator } from "@/components/share/presence";
import { ShareDialog } from "@/components/share/share-dialog";
import { usePresence, useTypingSignal } from "@/components/share/use-presence";
import { SessionBranch } from "@/components/chat/session-branch";

const todosInput = z.object({
  todos: z.array(
    z.object({ id: z.string(), content: z.string(), status: z.enum(["pending", "in_progress", "completed"]) }),
  ),
});

/**
 * The task list pinned above the conversation: the last todo_write that ran, while its turn is the
 * latest. A later message starts a new turn, and the old list stays in the log, not pinned over it.
 * The stored list stands in until the log has loaded.
 */
function liveTodos(transcript: Transcript, stored: Todo[] | undefined): Todo[] {
  if (transcript.items.length === 0) return stored ?? [];
  for (let i = transcript.items.length - 1; i >= 0; i--) {
    const item = transcript.items[i]!;
    if (item.kind === "user") return [];
    if (item.kind === "tool" && item.toolName === "todo_write" && item.status === "done")
      return todosInput.safeParse(item.input).data?.todos ?? [];
  }
  return [];
}

/** The `me.id` of someone watching through a view link without an account. */
export const GUEST_ID = "guest";

const STATUS_TEXT: Record<string, string> = {
  running: "Working",
  waiting_approval: "Waiting for you",
  interrupted: "Interrupted",
  failed: "Failed",
  idle: "",
};

type SessionViewProps = {
  projectId: string;
  projectName: string;
  sessionId: string;
  me: { id: string; name: string };
  /** Absent on a share-link page, which shows one session only. */
  onBack?: () => void;
  backLabel?: string;
  onOpenSession: (sessionId: string) => void;
  onTranscript: (sessionId: string, transcript: Transcript) => void;
  /** The live stream ended on an access error (a share link revoked or expired). */
  onAccessLost?: (message: string) => void;
  /** Opens another session in this one's place (/clear, a workflow run from a slash command). */
  onSwitchSession?: (sessionId: string) => void;
  /** Shows the agent's memory panel (/memory). */
  onShowMemory?: () => void;
};

export function SessionView({
  projectId,
  projectName,
  sessionId,
  me,
  onBack,
  backLabel,
  onOpenSession,
  onTranscript,
  onAccessLost,
  onSwitchSession,
  onShowMemory,
}: SessionViewProps) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { transcript, progress, connection, version } = useSessionLog(sessionId);
  const session = useQuery(trpc.session.get.queryOptions({ sessionId }));
  const canWrite = session.data?.canWrite ?? false;
  // Sending and answering: writers, and team members who came through a collaborate link.
  const canSend = session.data?.canSend ?? false;
  const canAnswer = session.data?.canAnswer ?? false;
  const canAllowHosts = session.data?.canAllowHosts ?? false;
  const presence = usePresence(sessionId, onAccessLost);
  const signalTyping = useTypingSignal(sessionId, canSend);
  const [sharing, setSharing] = useState(false);
  const [undoing, setUndoing] = useState<string | null>(null);
  const list = useRef<VirtualListHandle>(null);
  const jumpToLatest = useCallback(() => list.current?.jumpToLatest(), []);

  const send = useSendMessage();
  const mentions = useMentions(projectId, canSend);
  const commands = useSessionCommands({
    projectId,
    sessionId,
    model: session.data?.model,
    transcript,
    send: (text) => send.mutateAsync(sessionId, text),
    openSession: onSwitchSession ?? onOpenSession,
    showMemory: onShowMemory,
    share: () => setSharing(true),
    undo: setUndoing,
  });
  const cancel = useMutation(trpc.session.cancel.mutationOptions());
  const resume = useMutation(trpc.session.resume.mutationOptions());

  useEffect(() => onTranscript(sessionId, transcript), [sessionId, transcript, onTranscript]);

  // Notes and the stored task list change through tools: refetch when one of those finishes.
  const storedChanges = useMemo(
    () =>
      transcript.items.filter(
        (i) => i.kind === "tool" && (i.toolName === "note" || i.toolName === "todo_write") && i.result,
      ).length,
    [transcript],
  );
  useEffect(() => {
    if (storedChanges) void queryClient.invalidateQueries(trpc.session.get.queryFilter({ sessionId }));
  }, [storedChanges, queryClient, trpc, sessionId]);
  // The list's statuses and titles follow this session's status.
  useEffect(() => {
    void queryClient.invalidateQueries(trpc.session.list.queryFilter({ projectId }));
  }, [transcript.status, queryClient, trpc, projectId]);

  const status = transcript.lastSeq > 0 ? transcript.status : (session.data?.status ?? "idle");
  const busy = status === "running" || status === "waiting_approval";
  const canResume = canWrite && (status === "failed" || status === "interrupted");
  const doResume = useCallback(() => resume.mutate({ sessionId }), [resume, sessionId]);

  useCommands([
    ...(busy && canWrite
      ? [{ id: "session-stop", label: "Stop the agent", run: () => cancel.mutate({ sessionId }) }]
      : []),
    ...(canResume ? [{ id: "session-resume", label: "Resume the session", run: doResume }] : []),
    ...(canWrite ? [{ id: "session-share", label: "Share this session…", run: () => setSharing(true) }] : []),
  ]);

  const ctx: TranscriptContext = useMemo(
    () => ({
      projectId,
      sessionId,
      projectName,
      canWrite: canAnswer,
      canAllowHosts,
      me,
      progress,
      onResume: canResume ? doResume : null,
      onOpenSession,
    }),
    // `version` marks a change in the (mutable) progress map.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [
      projectId,
      sessionId,
      projectName,
      canAnswer,
      canAllowHosts,
      me,
      progress,
      canResume,
      doResume,
      onOpenSession,
      version,
    ],
  );
  const items = transcript.items;
  const render = useCallback(
    (item: (typeof items)[number], index: number) => (
      <TranscriptItemView item={item} isLast={index === items.length - 1} ctx={ctx} />
    ),
    [ctx, items.length],
  );

  const todos = liveTodos(transcript, session.data?.todos);
  const error = send.error ?? cancel.error ?? resume.error;

  return (
    <div className="session-view" data-testid="session-view" data-status={status} data-connection={connection}>
      <div className="session-header">
        {onBack && (
          <button
            type="button"
            className="btn btn-ghost btn-sm"
            onClick={onBack}
            data-testid="session-back"
            title={backLabel}
          >
            ‹ {backLabel}
          </button>
        )}
        {session.data && (
          <SessionTitle projectId={projectId} sessionId={sessionId} title={session.data.title} canWrite={canWrite} />
        )}
        <span className="spacer" />
        <PresenceAvatars entries={presence} meId={me.id} />
        {canWrite && (
          <button
            type="button"
            className="btn btn-ghost btn-sm"
            onClick={() => setSharing(true)}
            data-testid="session-share"
            title="Share links to this session"
          >
            Share
          </button>
        )}
      </div>
      {undoing &&
        createPortal(
          <RestoreDialog sessionId={sessionId} checkpointId={undoing} onClose={() => setUndoing(null)} />,
          document.body,
        )}
      {sharing && session.data && (
        <ShareDialog
          sessionId={sessionId}
          approvalsBy={session.data.approvalsBy}
          canManage={session.data.canManage}
          onClose={() => setSharing(false)}
        />
      )}
      <div className="session-meta">
        <span className="session-model" title="Model of this session">
          {session.data?.model}
        </span>
        {STATUS_TEXT[status] && (
          <span className={`status-pill ${status}`} data-testid="session-status">
            {STATUS_TEXT[status]}
          </span>
        )}
        {connection !== "live" && (
          <span className="status-pill offline">{connection === "offline" ? "Reconnecting…" : "Connecting…"}</span>
        )}
        <span className="spacer" />
        <ChangesButton projectId={projectId} sessionId={sessionId} transcript={transcript} />
        <UsageCounter usage={transcript.usage} costUsd={transcript.costUsd} />
      </div>
      {session.data?.treeId && (
        <SessionBranch projectId={projectId} sessionId={sessionId} canWrite={session.data.canWrite} />
      )}
      <TodoList todos={todos} />
      {items.length === 0 ? (
        <div className="center-message">
          {transcript.lastSeq === 0 && connection !== "live" ? "Loading…" : "No messages yet."}
        </div>
      ) : (
        <JumpToLatest value={jumpToLatest}>
          <VirtualList
            ref={list}
            contentKey={version}
            items={items}
            keyOf={transcriptKey}
            render={render}
            className="transcript"
            testId="transcript"
            label="Conversation"
          />
        </JumpToLatest>
      )}
      {error && <div className="error-text composer-error">{errorMessage(error)}</div>}
      <TypingIndicator entries={presence} meId={me.id} />
      {session.data && !canSend ? (
        // Those who may only watch get a line saying so, not a message box they cannot use.
        <div className="composer-readonly" data-testid="composer-readonly">
          {!session.data.canWrite && me.id === GUEST_ID
            ? "This link is view-only: you can watch the session, not write to it."
            : "Your role in this project is read-only."}
        </div>
      ) : (
        <Composer
          running={busy}
          disabled={session.data ? null : "Loading…"}
          onType={signalTyping}
          onSend={async (text, images) => {
            commands.clearNotice();
            // What is sent shows where the conversation ends, wherever the view was.
            jumpToLatest();
            if (images.length === 0 && (await commands.run(text))) return;
            await send.mutateAsync(sessionId, text, images, await mentions.mentionsToSend(text));
          }}
          complete={(trigger) => (trigger.char === "/" ? commands.complete(trigger) : mentions.complete(trigger))}
          mentionsOf={mentions.mentionsOf}
          notice={commands.notice}
          onStop={canWrite ? () => cancel.mutate({ sessionId }) : undefined}
          footer={
            <span className="hint">
              {busy ? "Messages now wait for the agent's turn" : "Enter sends · Shift+Enter new line · / for commands"}
            </span>
          }
        />
      )}
    </div>
  );
}
