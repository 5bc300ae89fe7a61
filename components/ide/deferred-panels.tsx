"use client";

import { type ComponentProps, type ComponentType, useEffect, useState } from "react";
import type { MemoryPanel as MemoryPanelCode } from "@/components/agent/memory-panel";
import type { NotesPanel as NotesPanelCode } from "@/components/agent/notes-panel";
import type { SessionBoard as SessionBoardCode } from "@/components/chat/session-board";
import type { SessionView as SessionViewCode } from "@/components/chat/session-view";
import type { GitDiffView as GitDiffViewCode } from "@/components/git/git-diff-view";
import type { PortsPanel as PortsPanelCode } from "@/components/ports/ports-panel";
import type { PreviewPanel as PreviewPanelCode } from "@/components/preview/preview-panel";
import type { ChangesView as ChangesViewCode } from "@/components/review/changes-view";

// The IDE's panels that are not on its first screen load their code when first shown, and in the
// background once the editor's code is in, so that a panel opened later does not wait for it.
// On a cold load of a small project (bench:open) their code was about a third of the IDE's own
// script (the open session's transcript and its cards, Source Control, the board, notes, memory,
// the Changes and diff views, Ports, Preview), fetched, compiled and run before the file could show.

/** A component's code, loaded once, on first use or by the preload. */
class DeferredCode<P> {
  loaded: ComponentType<P> | undefined;
  private loading: Promise<unknown> | undefined;

  constructor(private readonly load: () => Promise<ComponentType<P>>) {}

  preload(): Promise<unknown> {
    this.loading ??= this.load().then(
      (component) => {
        this.loaded = component;
      },
      (error: unknown) => {
        this.loading = undefined; // asked again next time
        throw error;
      },
    );
    return this.loading;
  }
}

/**
 * Renders `code`'s component once it is loaded. Loaded before (shown once, or preloaded), it
 * renders at once, in the frame of the click that shows it: next/dynamic's lazy component
 * suspended once even then, and put its placeholder on screen for that frame.
 */
function Deferred<P extends object>({ code, props }: { code: DeferredCode<P>; props: P }) {
  const [failed, setFailed] = useState<{ error: unknown } | null>(null);
  const [, setReady] = useState(false);
  useEffect(() => {
    if (!code.loaded)
      code.preload().then(
        () => setReady(true),
        (error: unknown) => setFailed({ error }),
      );
  }, [code]);
  if (failed) throw failed.error;
  const Loaded = code.loaded;
  return Loaded ? <Loaded {...props} /> : <div className="center-message">Loading…</div>;
}

const code = {
  sessionView: new DeferredCode(() => import("@/components/chat/session-view").then((m) => m.SessionView)),
  sessionBoard: new DeferredCode(() => import("@/components/chat/session-board").then((m) => m.SessionBoard)),
  notesPanel: new DeferredCode(() => import("@/components/agent/notes-panel").then((m) => m.NotesPanel)),
  memoryPanel: new DeferredCode(() => import("@/components/agent/memory-panel").then((m) => m.MemoryPanel)),
  sourceControl: new DeferredCode(() => import("@/components/git/source-control").then((m) => m.SourceControl)),
  portsPanel: new DeferredCode(() => import("@/components/ports/ports-panel").then((m) => m.PortsPanel)),
  changesView: new DeferredCode(() => import("@/components/review/changes-view").then((m) => m.ChangesView)),
  gitDiffView: new DeferredCode(() => import("@/components/git/git-diff-view").then((m) => m.GitDiffView)),
  previewPanel: new DeferredCode(() => import("@/components/preview/preview-panel").then((m) => m.PreviewPanel)),
};

export const SessionView = (props: ComponentProps<typeof SessionViewCode>) => (
  <Deferred code={code.sessionView} props={props} />
);
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
