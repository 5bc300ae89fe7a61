"use client";

import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/api/root";
import { SessionTitle } from "@/components/chat/session-title";
import { PlusIcon } from "@/components/ui/icons";

type SessionRow = inferRouterOutputs<AppRouter>["session"]["list"][number];

const STATUS: Record<string, string> = {
  running: "Working",
  waiting_approval: "Waiting for you",
  interrupted: "Interrupted",
  failed: "Failed",
};

function ago(date: Date): string {
  const s = Math.round((Date.now() - date.getTime()) / 1000);
  if (s < 60) return "just now";
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ago`;
  return date.toLocaleDateString();
}

/** The project's sessions, most recent first. */
export function SessionList({
  projectId,
  sessions,
  canWrite,
  onOpen,
  onNew,
}: {
  projectId: string;
  sessions: SessionRow[];
  canWrite: boolean;
  onOpen: (id: string) => void;
  onNew: () => void;
}) {
  return (
    <div className="session-list" data-testid="session-list">
      <div className="session-list-head">
        <span className="pane-header" style={{ padding: 0 }}>
          Sessions
        </span>
        <span className="spacer" />
        {canWrite && (
          <button type="button" className="btn btn-primary btn-sm" onClick={onNew} data-testid="new-session">
            <PlusIcon size={14} /> New session
          </button>
        )}
      </div>
      {sessions.length === 0 ? (
        <div className="empty">No sessions yet.</div>
      ) : (
        <ul className="sessions">
          {sessions.map((s) => (
            <li key={s.id} className="session-row" data-testid={`session-row`} data-session-id={s.id}>
              <SessionTitle
                projectId={projectId}
                sessionId={s.id}
                title={s.title}
                canWrite={canWrite}
                onOpen={() => onOpen(s.id)}
              >
                <span className="session-row-meta">
                  {STATUS[s.status] && <span className={`status-pill ${s.status}`}>{STATUS[s.status]}</span>}
                  <span>{ago(s.updatedAt)}</span>
                  <span>{s.model}</span>
                </span>
              </SessionTitle>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
