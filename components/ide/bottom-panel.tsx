"use client";

import { BOTTOM_PANELS } from "@/components/ide/bottom-panels";

const TITLE_STYLE = { padding: "0 8px 0 4px", height: "auto" };

/**
 * The panel under the editor: the one of BOTTOM_PANELS (bottom-panels.tsx) chosen by its title or
 * its keys. The titles head the panel's toolbar; one panel alone has a plain title, not a switch.
 */
export function BottomPanel({
  projectId,
  canWrite,
  active,
  onActive,
}: {
  projectId: string;
  canWrite: boolean;
  active: string;
  onActive: (id: string) => void;
}) {
  const panel = BOTTOM_PANELS.find((p) => p.id === active) ?? BOTTOM_PANELS[0];
  const header =
    BOTTOM_PANELS.length === 1 ? (
      <span className="pane-header" style={TITLE_STYLE}>
        {panel.title}
      </span>
    ) : (
      BOTTOM_PANELS.map((p) => (
        <button
          key={p.id}
          type="button"
          role="tab"
          aria-selected={p.id === panel.id}
          className={p.id === panel.id ? "pane-header" : "pane-header muted"}
          style={TITLE_STYLE}
          onClick={() => onActive(p.id)}
          data-testid={`bottom-panel-${p.id}`}
        >
          {p.title}
        </button>
      ))
    );
  const Panel = panel.component;
  return <Panel projectId={projectId} canWrite={canWrite} header={header} />;
}
