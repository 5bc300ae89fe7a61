"use client";

import type { ComponentProps } from "react";
import type { MemoryPanel as MemoryPanelCode } from "@/components/agent/memory-panel";
import type { NotesPanel as NotesPanelCode } from "@/components/agent/notes-panel";
import type { SessionBoard as SessionBoardCode } from "@/components/chat/session-board";
import type { GitDiffView as GitDiffViewCode } from "@/components/git/git-diff-view";
import type { PortsPanel as PortsPanelCode } from "@/components/ports/ports-panel";
import type { PreviewPanel as PreviewPanelCode } from "@/components/preview/preview-panel";
import type { ChangesView as ChangesViewCode } from "@/components/review/changes-view";
import { sessionViewCode } from "@/components/chat/sessions-tab";
import { Deferred, DeferredCode } from "@/components/ui/deferred";

// The IDE's panels that are not on its first screen load their code when first shown, and in the
// background once the editor's code is in, so that a panel opened later does not wait for it.
// On a cold load of a small project (bench:open) their code was about a third of the IDE's own
// script (the open session's transcript and its cards, Source Control, the board, notes, memory,
// the Changes and diff views, Ports, Preview), fetched, compiled and run before the file could show.

const code = {
  sessionView: sessionViewCode,
  sessionBoard: new DeferredCode(() => import("@/components/chat/session-board").then((m) => m.SessionBoard)),
  notesPanel: new DeferredCode(() => import("@/components/agent/notes-panel").then((m) => m.NotesPanel)),
  memoryPanel: new DeferredCode(() => import("@/components/agent/memory-panel").then((m) => m.MemoryPanel)),
  sourceControl: new DeferredCode(() => import("@/components/git/source-control").then((m) => m.SourceControl)),
  portsPanel: new DeferredCode(() => import("@/components/ports/ports-panel").then((m) => m.PortsPanel)),
  changesView: new DeferredCode(() => import("@/components/review/changes-view").then((m) => m.ChangesView)),
  gitDiffView: new DeferredCode(() => import("@/components/git/git-diff-view").then((m) => m.GitDiffView)),
  previewPanel: new DeferredCode(() => import("@/components/preview/preview-panel").then((m) => m.PreviewPanel)),
};

export const SessionBoard = (props: ComponentProps<typeof SessionBoardCode>) => (
  <Deferred code={code.sessionBoard} props={props} />
);
export const NotesPanel = (props: ComponentProps<typeof NotesPanelCode>) => (
  <Deferred code={code.notesPanel} props={props} />
);
export const MemoryPanel = (props: ComponentProps<typeof MemoryPanelCode>) => (
  <Deferred code={code.memoryPanel} props={props} />
);
export const SourceControl = () => <Deferred code={code.sourceControl} props={{}} />;
export const PortsPanel = (props: ComponentProps<typeof PortsPanelCode>) => (
  <Deferred code={code.portsPanel} props={props} />
);
export const ChangesView = (props: ComponentProps<typeof ChangesViewCode>) => (
  <Deferred code={code.changesView} props={props} />
);
export const GitDiffView = (props: ComponentProps<typeof GitDiffViewCode>) => (
  <Deferred code={code.gitDiffView} props={props} />
);
export const PreviewPanel = (props: ComponentProps<typeof PreviewPanelCode>) => (
  <Deferred code={code.previewPanel} props={props} />
);

/**
 * Fetches every deferred panel's code once `after` settles (the editor's code: the first file
 * shown does not share the network and the cores with them) and the page is next idle.
 */
export function preloadDeferredPanels(after: Promise<unknown>): () => void {
  let cancelled = false;
  let idle: number | undefined;
  const run = () => {
    for (const panel of Object.values(code)) void panel.preload().catch(() => undefined); // asked again when shown
  };
  void after
    .catch(() => undefined)
    .then(() => {
      if (!cancelled) idle = requestIdleCallback(run, { timeout: 2_000 });
    });
  return () => {
    cancelled = true;
    if (idle !== undefined) cancelIdleCallback(idle);
  };
}
