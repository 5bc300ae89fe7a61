"use client";

import { useEffect, useRef } from "react";
import { SIDE_VIEWS, type SideViewHandle } from "@/components/ide/side-views";
import { useCommands } from "@/components/ui/commands";

/** The letter of "Ctrl+Shift+<letter>". */
const letterOf = (keys: string) => keys.slice(keys.lastIndexOf("+") + 1).toLowerCase();

/**
 * The left column: the views of SIDE_VIEWS (side-views.tsx), switched by the tabs on top or by
 * their keys (VS Code's: Ctrl/Cmd+Shift+E, +F, +H for replace, +G). Views marked keepMounted stay
 * mounted while hidden, so a search survives a look at the tree.
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
  view: string;
  onView: (view: string) => void;
}) {
  const handles = useRef(new Map<string, SideViewHandle>());

  const show = (next: string, replace = false) => {
    onView(next);
    handles.current.get(next)?.focus(replace);
  };

  const shortcuts = SIDE_VIEWS.flatMap((v) => v.shortcuts.map((shortcut) => ({ view: v, shortcut })));

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (!(event.ctrlKey || event.metaKey) || !event.shiftKey || event.altKey) return;
      const hit = shortcuts.find(({ shortcut }) => letterOf(shortcut.keys) === event.key.toLowerCase());
      if (!hit) return;
      event.preventDefault();
      event.stopPropagation();
      show(hit.view.id, hit.shortcut.replace);
    };
    // Capture phase, so Monaco and the terminal do not take the keys first.
    window.addEventListener("keydown", onKey, true);
    return () => window.removeEventListener("keydown", onKey, true);
  });

  useCommands(
    shortcuts
      .filter(({ shortcut }) => canWrite || !shortcut.writersOnly)
      .map(({ view: v, shortcut }) => ({
        id: shortcut.command,
        label: shortcut.label,
        keys: shortcut.keys,
        run: () => show(v.id, shortcut.replace),
        takesFocus: v.takesFocus,
      })),
  );

  const props = { projectId, projectName, canWrite };
  return (
    <div className="side-bar">
      <div className="side-tabs" role="tablist" aria-label="Side bar">
        {SIDE_VIEWS.map(({ id, label, title, shortcuts: [first], badge: Badge }) => (
          <button
            type="button"
            key={id}
            role="tab"
            className="side-tab"
            aria-selected={view === id}
            title={first ? `${title} (${first.keys})` : title}
            onClick={() => show(id)}
            data-testid={`side-tab-${id}`}
          >
            <span className="side-tab-label">{label}</span>
            {Badge && <Badge />}
          </button>
        ))}
      </div>
      {SIDE_VIEWS.map(({ id, component: View, keepMounted }) => {
        if (!keepMounted && view !== id) return null;
        const remember = (handle: SideViewHandle | null) => {
          if (handle) handles.current.set(id, handle);
          else handles.current.delete(id);
        };
        return (
          <div key={id} className="side-view" hidden={view !== id}>
            <View {...props} ref={remember} />
          </div>
        );
      })}
    </div>
  );
}
