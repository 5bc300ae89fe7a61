"use client";

import { useEffect, useRef, useState } from "react";
import { Explorer } from "@/components/ide/explorer/explorer";
import { SearchPanel, type SearchPanelHandle } from "@/components/search/search-panel";
import { useCommands } from "@/components/ui/commands";

type View = "explorer" | "search";

const VIEWS: { id: View; label: string; keys: string }[] = [
  { id: "explorer", label: "Explorer", keys: "Ctrl+Shift+E" },
  { id: "search", label: "Search", keys: "Ctrl+Shift+F" },
];

/**
 * The left column: the explorer or the Search view, switched by the tabs on top or by VS Code's
 * keys (Ctrl/Cmd+Shift+E, +F, +H for replace). Both stay mounted, so a search survives a look at
 * the tree.
 */
export function SideBar({ projectId, projectName, canWrite }: { projectId: string; projectName: string; canWrite: boolean }) {
  const [view, setView] = useState<View>("explorer");
  const search = useRef<SearchPanelHandle>(null);

  const show = (next: View, replace = false) => {
    setView(next);
    if (next === "search") search.current?.focus(replace);
    else requestAnimationFrame(() => document.querySelector<HTMLElement>("[data-testid=file-tree]")?.focus());
  };

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (!(event.ctrlKey || event.metaKey) || !event.shiftKey || event.altKey) return;
      const key = event.key.toLowerCase();
      if (key !== "f" && key !== "h" && key !== "e") return;
      event.preventDefault();
      event.stopPropagation();
      if (key === "e") show("explorer");
      else show("search", key === "h");
    };
    // Capture phase, so Monaco and the terminal do not take the keys first.
    window.addEventListener("keydown", onKey, true);
    return () => window.removeEventListener("keydown", onKey, true);
  });

  useCommands([
    { id: "view-search", label: "Find in files", keys: "Ctrl+Shift+F", run: () => show("search"), takesFocus: true },
    ...(canWrite ? [{ id: "view-replace", label: "Replace in files", keys: "Ctrl+Shift+H", run: () => show("search", true), takesFocus: true }] : []),
    { id: "view-explorer", label: "Show the explorer", keys: "Ctrl+Shift+E", run: () => show("explorer"), takesFocus: true },
  ]);

  return (
    <div className="side-bar">
      <div className="side-tabs" role="tablist" aria-label="Side bar">
        {VIEWS.map((v) => (
          <button
            key={v.id}
            role="tab"
            className="side-tab"
            aria-selected={view === v.id}
            title={`${v.label} (${v.keys})`}
            onClick={() => show(v.id)}
            data-testid={`side-tab-${v.id}`}
          >
            {v.label}
          </button>
        ))}
      </div>
      <div className="side-view" hidden={view !== "explorer"}>
        <Explorer projectName={projectName} />
      </div>
      <div className="side-view" hidden={view !== "search"}>
        <SearchPanel ref={search} projectId={projectId} canWrite={canWrite} />
      </div>
    </div>
  );
}
