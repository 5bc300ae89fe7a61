"use client";

import { useEffect, useRef } from "react";
import { useGit } from "@/components/git/git-context";
import { SourceControl } from "@/components/git/source-control";
import { Explorer } from "@/components/explorer/explorer";
import { SearchPanel, type SearchPanelHandle } from "@/components/search/search-panel";
import { useCommands } from "@/components/ui/commands";

export type SideView = "explorer" | "search" | "scm";

// Short labels, so the three tabs and the Git badge fit the default 200 px column; the tooltips
// give VS Code's names.
const VIEWS: { id: SideView; label: string; name: string; keys: string }[] = [
  { id: "explorer", label: "Files", name: "Explorer", keys: "Ctrl+Shift+E" },
  { id: "search", label: "Search", name: "Search", keys: "Ctrl+Shift+F" },
  { id: "scm", label: "Git", name: "Source Control", keys: "Ctrl+Shift+G" },
];

/**
 * The left column: the explorer, the Search view or Source Control, switched by the tabs on top or
 * by VS Code's keys (Ctrl/Cmd+Shift+E, +F, +H for replace, +G). Explorer and Search stay mounted,
 * so a search survives a look at the tree.
 */
export function SideBar({
  projectId,
  projectName,
  canWrite,
  view,
  onView,
}: {
  projectId: string;
  projectName: string;
  canWrite: boolean;
  view: SideView;
  onView: (view: SideView) => void;
}) {
  const search = useRef<SearchPanelHandle>(null);
  const { status } = useGit();
  const count = status.data?.repository
    ? status.data.staged.length +
      status.data.changed.length +
      status.data.untracked.length +
      status.data.conflicted.length
    : 0;

  const show = (next: SideView, replace = false) => {
    onView(next);
    if (next === "search") search.current?.focus(replace);
    else if (next === "explorer")
      requestAnimationFrame(() => document.querySelector<HTMLElement>("[data-testid=file-tree]")?.focus());
  };

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (!(event.ctrlKey || event.metaKey) || !event.shiftKey || event.altKey) return;
      const key = event.key.toLowerCase();
      if (!["e", "f", "h", "g"].includes(key)) return;
      event.preventDefault();
      event.stopPropagation();
      if (key === "e") show("explorer");
      else if (key === "g") show("scm");
      else show("search", key === "h");
    };
    // Capture phase, so Monaco and the terminal do not take the keys first.
    window.addEventListener("keydown", onKey, true);
    return () => window.removeEventListener("keydown", onKey, true);
  });

  useCommands([
    { id: "view-search", label: "Find in files", keys: "Ctrl+Shift+F", run: () => show("search"), takesFocus: true },
    ...(canWrite
      ? [
          {
            id: "view-replace",
            label: "Replace in files",
            keys: "Ctrl+Shift+H",
            run: () => show("search", true),
            takesFocus: true,
          },
        ]
      : []),
    {
      id: "view-explorer",
      label: "Show the explorer",
      keys: "Ctrl+Shift+E",
      run: () => show("explorer"),
      takesFocus: true,
    },
    { id: "view-scm", label: "Show Source Control", keys: "Ctrl+Shift+G", run: () => show("scm") },
  ]);

  return (
    <div className="side-bar">
      <div className="side-tabs" role="tablist" aria-label="Side bar">
        {VIEWS.map((v) => (
          <button
            type="button"
            key={v.id}
            role="tab"
            className="side-tab"
            aria-selected={view === v.id}
            title={`${v.name} (${v.keys})`}
            onClick={() => show(v.id)}
            data-testid={`side-tab-${v.id}`}
          >
            <span className="side-tab-label">{v.label}</span>
            {v.id === "scm" && count > 0 && <span className="scm-count">{count}</span>}
          </button>
        ))}
      </div>
      <div className="side-view" hidden={view !== "explorer"}>
        <Explorer projectName={projectName} />
      </div>
      <div className="side-view" hidden={view !== "search"}>
        <SearchPanel ref={search} projectId={projectId} canWrite={canWrite} />
      </div>
      {view === "scm" && (
        <div className="side-view">
          <SourceControl />
        </div>
      )}
    </div>
  );
}
