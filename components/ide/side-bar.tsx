"use client";

import { useEffect, useState } from "react";
import { useGit } from "@/components/git/git-context";
import { SourceControl } from "@/components/git/source-control";
import { Explorer } from "@/components/ide/explorer/explorer";
import { useCommands } from "@/components/ui/commands";

export type SideView = "explorer" | "scm";

/** The left side: Explorer or Source Control, switched by its tabs or VS Code's keys (Ctrl/Cmd+Shift+E, +G). */
export function SideBar({ projectName, view, onView }: { projectName: string; view: SideView; onView: (view: SideView) => void }) {
  const { status } = useGit();
  const count = status.data?.repository ? status.data.staged.length + status.data.changed.length + status.data.untracked.length + status.data.conflicted.length : 0;

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (!(event.ctrlKey || event.metaKey) || !event.shiftKey) return;
      const key = event.key.toLowerCase();
      if (key === "g" || key === "e") {
        event.preventDefault();
        onView(key === "g" ? "scm" : "explorer");
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [onView]);
  useCommands([
    { id: "view-explorer", label: "Show the Explorer", keys: "Ctrl+Shift+E", run: () => onView("explorer") },
    { id: "view-scm", label: "Show Source Control", keys: "Ctrl+Shift+G", run: () => onView("scm") },
  ]);

  return (
    <div className="pane sidebar">
      <div className="sidebar-tabs" role="tablist">
        <button className="sidebar-tab" role="tab" aria-selected={view === "explorer"} onClick={() => onView("explorer")} data-testid="sidebar-explorer" title="Explorer (Ctrl+Shift+E)">
          Explorer
        </button>
        <button className="sidebar-tab" role="tab" aria-selected={view === "scm"} onClick={() => onView("scm")} data-testid="sidebar-scm" title="Source Control (Ctrl+Shift+G)">
          Source Control {count > 0 && <span className="scm-count">{count}</span>}
        </button>
      </div>
      {view === "explorer" ? <Explorer projectName={projectName} /> : <SourceControl />}
    </div>
  );
}
