"use client";

import type { ComponentType, ReactNode } from "react";
import { PortsPanel } from "@/components/ide/deferred-panels";
import { TerminalPanel } from "@/components/terminal/terminal-panel";

// The panels under the editor (ide/bottom-panel.tsx renders whatever this list holds; their titles
// head the panel and switch between them). A new panel is one entry: its id, title, component,
// and optionally the keys that go to it (also offered in the command palette).

export type BottomPanelProps = {
  projectId: string;
  canWrite: boolean;
  /** The panels' titles, for the component to put at the start of its toolbar. */
  header: ReactNode;
};

export type BottomPanelEntry = {
  id: string;
  title: string;
  component: ComponentType<BottomPanelProps>;
  /**
   * Ctrl+<key>, as Ctrl+` for the terminal: shows the panel and gives it the keyboard through its
   * `focus` commands (running `open` when `focus` is not offered, e.g. no terminal is open); when
   * the panel already has the keyboard (`focused` matches document.activeElement), hides it.
   */
  shortcut?: { keys: string; label: string; focus: string; open: string; focused: string };
};

export const BOTTOM_PANELS: BottomPanelEntry[] = [
  {
    id: "terminal",
    title: "Terminal",
    component: TerminalPanel,
    shortcut: {
      keys: "Ctrl+`",
      label: "Go to the terminal, or hide it when it has the keyboard",
      focus: "terminal-focus",
      open: "terminal-new",
      focused: "[data-testid=terminal-host] textarea",
    },
  },
  { id: "ports", title: "Ports", component: PortsPanel },
];
