"use client";

import { useState } from "react";
import { useAgentSessions } from "@/components/chat/use-agent-sessions";
import { AGENT_TABS } from "@/components/ide/agent-tabs";
import { useCommands } from "@/components/ui/commands";

type AgentPanelProps = { projectId: string; projectName: string; canWrite: boolean; me: { id: string; name: string } };

/** The IDE's right-hand column: the tabs of AGENT_TABS (agent-tabs.tsx), one shown at a time. */
export function AgentPanel({ projectId, projectName, canWrite, me }: AgentPanelProps) {
  const [tab, setTab] = useState(AGENT_TABS[0].id);
  const agent = useAgentSessions({ projectId, projectName, canWrite, me, show: setTab });
  const props = { projectId, projectName, canWrite, me, agent, show: setTab };

  useCommands(
    AGENT_TABS.filter((t) => t.id !== tab).map((t) => ({
      id: `tab-${t.id}`,
      label: `Show agent ${t.title.toLowerCase()}`,
      run: () => setTab(t.id),
    })),
  );

  const Active = (AGENT_TABS.find((t) => t.id === tab) ?? AGENT_TABS[0]).component;
  return (
    <div className="pane agent-panel" data-testid="agent-panel">
      <div className="agent-tabs" role="tablist" aria-label="Agent">
        {AGENT_TABS.map(({ id, title, badge: Badge }) => (
          <button
            key={id}
            type="button"
            role="tab"
            aria-selected={tab === id}
            className={tab === id ? "agent-tab active" : "agent-tab"}
            onClick={() => setTab(id)}
            data-testid={`agent-tab-${id}`}
          >
            {title}
            {Badge && <Badge {...props} />}
          </button>
        ))}
      </div>
      <div className="agent-body" role="tabpanel">
        <Active {...props} />
      </div>
    </div>
  );
}
