"use client";

import type { ComponentType } from "react";
import { SessionsTab } from "@/components/chat/sessions-tab";
import type { AgentSessions } from "@/components/chat/use-agent-sessions";
import { MemoryPanel, NotesPanel, SessionBoard } from "@/components/ide/deferred-panels";

// The tabs of the IDE's agent panel (ide/agent-panel.tsx renders whatever this list holds, in
// order). A new tab is one entry: its id, its title, the component that fills the panel, and
// optionally a badge beside the title. The review of a session's changes is not a tab: it opens
// from the session's header (components/review/changes-button.tsx), beside what it reviews.

export type AgentTabProps = {
  projectId: string;
  projectName: string;
  canWrite: boolean;
  me: { id: string; name: string };
  /** The session open in the panel, the list, what waits for people (components/chat). */
  agent: AgentSessions;
  /** Shows another tab of the panel. */
  show: (id: string) => void;
};

export type AgentTab = {
  id: string;
  title: string;
  component: ComponentType<AgentTabProps>;
  badge?: ComponentType<AgentTabProps>;
};

export const AGENT_TABS: AgentTab[] = [
  {
    id: "chat",
    title: "Chat",
    component: ({ show, ...props }) => <SessionsTab {...props} onShowMemory={() => show("memory")} />,
    badge: ({ agent: { waiting } }) =>
      waiting > 0 && (
        <span className="badge" data-testid="waiting-badge" role="status" aria-label={`${waiting} waiting for you`}>
          {waiting}
        </span>
      ),
  },
  {
    id: "board",
    title: "Board",
    component: ({ agent, me }) => <SessionBoard agent={agent} me={me} />,
  },
  {
    id: "notes",
    title: "Notes",
    component: ({ agent }) =>
      agent.openId ? (
        <NotesPanel sessionId={agent.openId} />
      ) : (
        <div className="center-message">Open a session to see its notes.</div>
      ),
  },
  {
    id: "memory",
    title: "Memory",
    component: ({ projectId, canWrite }) => <MemoryPanel projectId={projectId} canWrite={canWrite} />,
  },
];
