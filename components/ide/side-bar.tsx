"use client";

import { useEffect, useRef, useState } from "react";
import { SIDE_VIEWS, type SideViewHandle } from "@/components/ide/side-views";
import { useCommands } from "@/components/ui/commands";

/** The letter of "Ctrl+Shift+<letter>". */
const letterOf = (keys: string) => keys.slice(keys.lastIndexOf("+") + 1).toLowerCase();

/**
 * The left column: the views of SIDE_VIEWS (side-views.tsx), switched by the tabs on top or by
 * their keys (VS Code's: Ctrl/Cmd+Shift+E, +F, +H for replace, +G). Views marked keepMounted stay
 * mounted while hidden once shown, so a search survives a look at the tree.
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
  // A view is first mounted when first shown (the search panel's form and list are no part of the
  // first screen's render), then kept mounted if it says so. The keyboard asked for a view not yet
  // mounted goes to it as its handle arrives.
  const [shown, setShown] = useState(() => new Set([view]));
  if (!shown.has(view)) setShown(new Set(shown).add(view));
  const focusWhenMounted = useRef<{ view: string; replace: boolean } | null>(null);

  const show = (next: string, replace = false) => {
    onView(next);
    const handle = handles.current.get(next);
    if (handle) handle.focus(replace);
    else focusWhenMounted.current = { view: next, replace };
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
        if (view !== id && !(keepMounted && shown.has(id))) return null;
        const remember = (handle: SideViewHandle | null) => {
          if (!handle) return void handles.current.delete(id);
          handles.current.set(id, handle);
          const pending = focusWhenMounted.current;
          if (pending?.view === id) {
            focusWhenMounted.current = null;
            handle.focus(pending.replace);
          }
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
