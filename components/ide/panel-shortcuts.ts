"use client";

import { useEffect, useMemo } from "react";
import type { PanelImperativeHandle } from "react-resizable-panels";
import { BOTTOM_PANELS, type BottomPanelEntry } from "@/components/ide/bottom-panels";
import { useCommands, useRunCommand } from "@/components/ui/commands";

type PanelRef = { current: PanelImperativeHandle | null };
type Shortcut = NonNullable<BottomPanelEntry["shortcut"]>;

const toggle = (panel: PanelRef) => {
  const handle = panel.current;
  if (!handle) return false;
  if (handle.isCollapsed()) handle.expand();
  else handle.collapse();
  return !handle.isCollapsed();
};

/** The key of "Ctrl+<key>" as KeyboardEvent.code: "Backquote" for "Ctrl+`", "KeyX" for a letter. */
const codeOf = (keys: string) => {
  const key = keys.slice(keys.lastIndexOf("+") + 1);
  return key === "`" ? "Backquote" : `Key${key.toUpperCase()}`;
};

/**
 * Ctrl+` as in VS Code: shows the bottom panel with the terminal and focuses it, opening one when
 * there is none (the terminal panel's commands); hides the panel only when the terminal already
 * has the keyboard, so from the editor it goes to the terminal, not away. Any bottom panel with a
 * shortcut (bottom-panels.tsx) behaves the same.
 */
const goTo = (
  bottom: PanelRef,
  id: string,
  shortcut: Shortcut,
  select: (id: string) => void,
  runCommand: (id: string) => boolean,
) => {
  const handle = bottom.current;
  if (!handle) return;
  const focused = document.activeElement?.matches(shortcut.focused) ?? false;
  if (handle.isCollapsed()) handle.expand();
  else if (focused) return void handle.collapse();
  select(id);
  if (!runCommand(shortcut.focus)) runCommand(shortcut.open);
};

/**
 * The editor's panel keys, as in VS Code: Ctrl/Cmd+B toggles the explorer, Ctrl/Cmd+J the bottom
 * panel, and the bottom panels' own keys (Ctrl+` for the terminal) go to them. Listened for in the
 * capture phase, so they work from Monaco and xterm too, and offered in the command palette.
 */
export function usePanelShortcuts({
  explorer,
  bottom,
  selectBottom,
}: {
  explorer: PanelRef;
  bottom: PanelRef;
  selectBottom: (id: string) => void;
}) {
  const runCommand = useRunCommand();
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const mod = event.ctrlKey || event.metaKey;
      if (!mod || event.altKey || event.shiftKey) return;
      const panel = BOTTOM_PANELS.find((p) => p.shortcut && event.code === codeOf(p.shortcut.keys));
      if (event.code === "KeyB") toggle(explorer);
      else if (event.code === "KeyJ") toggle(bottom);
      // Ctrl, not Cmd: Cmd+` switches windows on a Mac.
      else if (panel?.shortcut && event.ctrlKey) goTo(bottom, panel.id, panel.shortcut, selectBottom, runCommand);
      else return;
      event.preventDefault();
      event.stopPropagation();
    };
    window.addEventListener("keydown", onKey, true);
    return () => window.removeEventListener("keydown", onKey, true);
  }, [explorer, bottom, selectBottom, runCommand]);

  useCommands(
    useMemo(
      () => [
        { id: "toggle-explorer", label: "Show or hide the explorer", keys: "Ctrl+B", run: () => void toggle(explorer) },
        {
          id: "toggle-panel",
          label: "Show or hide the terminal panel",
          keys: "Ctrl+J",
          run: () => void toggle(bottom),
        },
        ...BOTTOM_PANELS.flatMap(({ id, shortcut }) =>
          shortcut
            ? [
                {
                  id: `toggle-${id}`,
                  label: shortcut.label,
                  keys: shortcut.keys,
                  run: () => goTo(bottom, id, shortcut, selectBottom, runCommand),
                  takesFocus: true,
                },
              ]
            : [],
        ),
      ],
      [explorer, bottom, selectBottom, runCommand],
    ),
  );
}
