"use client";

import "@/components/chat/chat.css";
import { NewSession } from "@/components/chat/new-session";
import { SessionList } from "@/components/chat/session-list";
import type { AgentSessions } from "@/components/chat/use-agent-sessions";
import { Deferred, DeferredCode } from "@/components/ui/deferred";

/** An open session's view loads when first shown (components/ide/deferred-panels.tsx preloads it). */
export const sessionViewCode = new DeferredCode(() =>
  import("@/components/chat/session-view").then((m) => m.SessionView),
);

/** The agent panel's Chat tab: the sessions, a new one, or the conversation of the open one. */
export function SessionsTab({
  projectId,
  projectName,
  canWrite,
  me,
  agent,
  onShowMemory,
}: {
  projectId: string;
  projectName: string;
  canWrite: boolean;
  me: { id: string; name: string };
  agent: AgentSessions;
  onShowMemory: () => void;
}) {
  const { view, setView, sessions } = agent;
  if (!view) return <div className="center-message">Loading…</div>;
  if (view.kind === "list")
    return (
      <SessionList
        projectId={projectId}
        sessions={sessions ?? []}
        canWrite={canWrite}
        onOpen={agent.open}
        onNew={() => setView({ kind: "new" })}
      />
    );
  if (view.kind === "new")
    return (
      <NewSession
        projectId={projectId}
        canWrite={canWrite}
        onCreated={agent.open}
        onCancel={sessions?.length ? () => setView({ kind: "list" }) : null}
      />
    );
  return (
    <Deferred
      key={view.id}
      code={sessionViewCode}
      props={{
        projectId,
        projectName,
        sessionId: view.id,
        me,
        backLabel: view.trail.length ? "Parent session" : "Sessions",
        onBack: () =>
          view.trail.length
            ? setView({ kind: "session", id: view.trail.at(-1)!, trail: view.trail.slice(0, -1) })
            : setView({ kind: "list" }),
        onOpenSession: agent.openChild,
        onSwitchSession: (id: string) => setView({ kind: "session", id, trail: [] }),
        onShowMemory,
        onTranscript: agent.onTranscript,
      }}
    />
  );
}
