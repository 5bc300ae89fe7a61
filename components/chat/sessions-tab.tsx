"use client";

import "@/components/chat/chat.css";
import { NewSession } from "@/components/chat/new-session";
import { SessionList } from "@/components/chat/session-list";
import type { AgentSessions } from "@/components/chat/use-agent-sessions";
import { SessionView } from "@/components/ide/deferred-panels";

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
    <SessionView
      key={view.id}
      projectId={projectId}
      projectName={projectName}
      sessionId={view.id}
      me={me}
      backLabel={view.trail.length ? "Parent session" : "Sessions"}
      onBack={() =>
        view.trail.length
          ? setView({ kind: "session", id: view.trail.at(-1)!, trail: view.trail.slice(0, -1) })
          : setView({ kind: "list" })
      }
      onOpenSession={agent.openChild}
      onSwitchSession={(id) => setView({ kind: "session", id, trail: [] })}
      onShowMemory={onShowMemory}
      onTranscript={agent.onTranscript}
    />
  );
}
