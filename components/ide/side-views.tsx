"use client";

import type { ComponentType, Ref } from "react";
import { Explorer } from "@/components/explorer/explorer";
import { ChangeCount } from "@/components/git/change-count";
import { SourceControl } from "@/components/ide/deferred-panels";
import { SearchPanel } from "@/components/search/search-panel";

// The views of the IDE's left column (ide/side-bar.tsx renders whatever this list holds, as tabs
// in this order). A new view is one entry: its id, the tab's label and VS Code's name for it, the
// component, and the keys that show it (also offered in the command palette).

export type SideViewProps = { projectId: string; projectName: string; canWrite: boolean };

/** What a view that takes the keyboard when shown exposes to the side bar. */
export type SideViewHandle = { focus(replace?: boolean): void };

export type SideViewShortcut = {
  /** The command palette's id and label for it. */
  command: string;
  label: string;
  /** "Ctrl+Shift+<letter>" (Cmd on a Mac). */
  keys: string;
  /** Search's replace field rather than its find field. */
  replace?: boolean;
  /** Offered in the palette only to people who may change the project. */
  writersOnly?: boolean;
};

export type SideView = {
  id: string;
  /** On the tab: short, so every tab fits the default 200 px column. */
  label: string;
  /** VS Code's name, in the tab's tooltip. */
  title: string;
  component: ComponentType<SideViewProps & { ref?: Ref<SideViewHandle> }>;
  /** The first one's keys show in the tab's tooltip. */
  shortcuts: SideViewShortcut[];
  /** Once shown, stays mounted while hidden, so its state survives a look at another view. */
  keepMounted?: boolean;
  /** Shown, it takes the keyboard (through the SideViewHandle its component exposes). */
  takesFocus?: boolean;
  /** Beside the tab's label (Source Control's count of changed files). */
  badge?: ComponentType;
};

export const SIDE_VIEWS: SideView[] = [
  {
    id: "explorer",
    label: "Files",
    title: "Explorer",
    component: Explorer,
    shortcuts: [{ command: "view-explorer", label: "Show the explorer", keys: "Ctrl+Shift+E" }],
    keepMounted: true,
    takesFocus: true,
  },
  {
    id: "search",
    label: "Search",
    title: "Search",
    component: SearchPanel,
    shortcuts: [
      { command: "view-search", label: "Find in files", keys: "Ctrl+Shift+F" },
      { command: "view-replace", label: "Replace in files", keys: "Ctrl+Shift+H", replace: true, writersOnly: true },
    ],
    keepMounted: true,
    takesFocus: true,
  },
  {
    id: "scm",
    label: "Git",
    title: "Source Control",
    component: () => <SourceControl />,
    shortcuts: [{ command: "view-scm", label: "Show Source Control", keys: "Ctrl+Shift+G" }],
    badge: ChangeCount,
  },
];
