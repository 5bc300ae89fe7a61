"use client";

import dynamic from "next/dynamic";

// The IDE's panels that are not on its first screen load their code when first shown, and in the
// background once the first screen has settled, so that a panel opened later does not wait for it.
// On a cold load of a small project (bench:open) their code was about a third of the IDE's own
// script (the open session's transcript and its cards, Source Control, the board, notes, memory,
// the Changes and diff views, Ports, Preview), fetched, compiled and run before the file could show.

const loaders = {
  sessionView: () => import("@/components/chat/session-view").then((m) => m.SessionView),
  sessionBoard: () => import("@/components/chat/session-board").then((m) => m.SessionBoard),
  notesPanel: () => import("@/components/agent/notes-panel").then((m) => m.NotesPanel),
  memoryPanel: () => import("@/components/agent/memory-panel").then((m) => m.MemoryPanel),
  sourceControl: () => import("@/components/git/source-control").then((m) => m.SourceControl),
  portsPanel: () => import("@/components/ports/ports-panel").then((m) => m.PortsPanel),
  changesView: () => import("@/components/review/changes-view").then((m) => m.ChangesView),
  gitDiffView: () => import("@/components/git/git-diff-view").then((m) => m.GitDiffView),
  previewPanel: () => import("@/components/preview/preview-panel").then((m) => m.PreviewPanel),
};

/** What a panel shows for the moment its code is still on its way (only before the preload has fetched it). */
const loading = () => <div className="center-message">Loading…</div>;

export const SessionView = dynamic(loaders.sessionView, { ssr: false, loading });
export const SessionBoard = dynamic(loaders.sessionBoard, { ssr: false, loading });
export const NotesPanel = dynamic(loaders.notesPanel, { ssr: false, loading });
export const MemoryPanel = dynamic(loaders.memoryPanel, { ssr: false, loading });
export const SourceControl = dynamic(loaders.sourceControl, { ssr: false, loading });
export const PortsPanel = dynamic(loaders.portsPanel, { ssr: false, loading });
export const ChangesView = dynamic(loaders.changesView, { ssr: false, loading });
export const GitDiffView = dynamic(loaders.gitDiffView, { ssr: false, loading });
export const PreviewPanel = dynamic(loaders.previewPanel, { ssr: false, loading });

/**
 * Fetches every deferred panel's code once `after` settles (the editor's code: the first file
 * shown does not share the network and the cores with them) and the page is next idle.
 */
export function preloadDeferredPanels(after: Promise<unknown>): () => void {
  let cancelled = false;
  let idle: number | undefined;
  const run = () => {
    for (const load of Object.values(loaders)) void load().catch(() => undefined); // retried when shown
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
