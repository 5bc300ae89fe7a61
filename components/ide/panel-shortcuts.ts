"use client";

import { useEffect, useMemo } from "react";
import type { PanelImperativeHandle } from "react-resizable-panels";
import { useCommands, useRunCommand } from "@/components/ui/commands";

type PanelRef = { current: PanelImperativeHandle | null };

const toggle = (panel: PanelRef) => {
  const handle = panel.current;
  if (!handle) return false;
  if (handle.isCollapsed()) handle.expand();
  else handle.collapse();
  return !handle.isCollapsed();
};

const TERMINAL_INPUT = "[data-testid=terminal-host] textarea";

/**
 * Ctrl+` as in VS Code: shows the panel and focuses the terminal, opening one when there is none
 * (the terminal panel's commands); hides the panel only when the terminal already has the
 * keyboard, so from the editor it goes to the terminal, not away.
 */
const toggleTerminal = (bottom: PanelRef, runCommand: (id: string) => boolean) => {
  const handle = bottom.current;
  if (!handle) return;
  const terminalFocused = document.activeElement?.matches(TERMINAL_INPUT) ?? false;
  if (handle.isCollapsed()) handle.expand();
  else if (terminalFocused) return void handle.collapse();
  if (!runCommand("terminal-focus")) runCommand("terminal-new");
};

/**
 * The editor's panel keys, as in VS Code: Ctrl/Cmd+B toggles the explorer, Ctrl/Cmd+J the bottom
 * panel, Ctrl+` the terminal (focused when it opens). Listened for in the capture phase, so they
 * work from Monaco and xterm too, and offered in the command palette.
 */
export function usePanelShortcuts({ explorer, bottom }: { explorer: PanelRef; bottom: PanelRef }) {
  const runCommand = useRunCommand();
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const mod = event.ctrlKey || event.metaKey;
      if (!mod || event.altKey || event.shiftKey) return;
      if (event.code === "KeyB") toggle(explorer);
      else if (event.code === "KeyJ") toggle(bottom);
      else if (event.code === "Backquote" && event.ctrlKey) toggleTerminal(bottom, runCommand);
      else return;
      event.preventDefault();
      event.stopPropagation();
    };
    window.addEventListener("keydown", onKey, true);
    return () => window.removeEventListener("keydown", onKey, true);
  }, [explorer, bottom, runCommand]);

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
        {
          id: "toggle-terminal",
          label: "Go to the terminal, or hide it when it has the keyboard",
          keys: "Ctrl+`",
          run: () => toggleTerminal(bottom, runCommand),
          takesFocus: true,
        },
      ],
      [explorer, bottom, runCommand],
    ),
  );
}
