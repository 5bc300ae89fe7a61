"use client";

import { useCallback, useEffect, useState } from "react";
import { EditorTabs } from "@/components/editor/editor-tabs";
import { FileBanners } from "@/components/editor/file-banners";
import { type FileBuffer, isDependency } from "@/components/editor/file-buffer";
import type { FileBuffers } from "@/components/editor/file-buffers";
import type { MonacoPaneProps } from "@/components/editor/monaco-pane";
import type { OpenTabs } from "@/components/editor/open-tabs";
import {
  EditorFontWarmUp,
  type EarlyTyping,
  PLACEHOLDER_MAX_CHARS,
  TextPlaceholder,
} from "@/components/editor/text-placeholder";
import { Deferred, DeferredCode } from "@/components/ui/deferred";
import { typingPause } from "@/components/editor/early-typing";
import { useBuffersState, useFileBuffers, useOpenTabs, useTabsState } from "@/components/editor/open-files-context";
import { useCommands } from "@/components/ui/commands";
import { Dialog } from "@/components/ui/dialog";
import { useRegisterChangesHost } from "@/components/review/active-session";
import { afterPaint } from "@/components/ui/after-paint";
import { useGitConflicted } from "@/components/git/git-context";
import { useExplorer } from "@/components/explorer/explorer-context";
import { ChangesView, GitDiffView } from "@/components/ide/deferred-panels";
import { useAgentLineMarks } from "@/components/review/agent-line-marks";

// Monaco's icon font (codicon, display: block; its face is declared by app/layout.tsx) loads
// once a glyph of it is drawn: after the editor's first frame, so the folding arrows were blank
// and its arrival re-resolved the page's fonts (~110 ms later, as the first keys were typed).
// Asked for with the editor's code instead.
// And it runs only once early typing's text has gone without a key for a moment (typingPause).
const monacoPane = new DeferredCode<MonacoPaneProps>(async () => {
  await typingPause();
  void document.fonts?.load("16px codicon");
  return import("@/components/editor/monaco-pane").then((module) => module.default);
});

/** Resolves once the editor's code is in (what waits behind it: deferred-panels.tsx); asks for nothing. */
export const editorCodeIn = monacoPane.in;

/**
 * How long after the IDE is on screen the editor's code loads when no file has asked for it. A
 * file shown before then asks for it once it has loaded (FileEditor).
 */
const EDITOR_CODE_AFTER_MS = 1_500;

export function EditorArea() {
  const tabs = useOpenTabs();
  const buffers = useFileBuffers();
  const { paths, active, changes, changesActive, gitDiff, gitDiffActive, following } = useTabsState();
  const open = useBuffersState();
  useRegisterChangesHost();

  const [closing, setClosing] = useState<string | null>(null);
  const files = paths.flatMap((path) => open.get(path) ?? []);
  const file = (active && open.get(active)) || null;
  const gitConflicted = useGitConflicted(file?.path ?? "");

  // Monaco is the IDE's largest chunk (~3.8 MB of script), compiled off the main thread as it
  // streams in and then run on it. It waits until the first file has loaded (its text on screen
  // and taking typing, early-typing.ts): fetched as the IDE came on screen, its compile shared the two
  // cores with the file's text and live document, and on a reload its run on the main thread held
  // the live document's socket back (~450 ms after the text showed, bench:open). Only the syntax
  // colours, the minimap and the editor's own keys wait for it now. With no file shown it loads
  // EDITOR_CODE_AFTER_MS after the IDE's first frame, so that a file opened later finds it in.
  useEffect(() => {
    let cancel = () => {};
    const timer = setTimeout(() => {
      cancel = afterPaint(() => void monacoPane.preload());
    }, EDITOR_CODE_AFTER_MS);
    return () => {
      clearTimeout(timer);
      cancel();
    };
  }, []);

  // The others in live documents see which file is on screen here; follow mode opens the file
  // the followed person has on screen (their cursor is followed by the editor, monaco-pane.tsx).
  useEffect(() => buffers.announce(file?.path ?? null), [buffers, file?.path]);
  const followedFile = following
    ? [...open.values()].flatMap((f) => f.peers).find((peer) => peer.name === following && peer.looking)?.looking
    : undefined;
  useEffect(() => {
    if (followedFile && followedFile !== active) void tabs.open(followedFile);
  }, [tabs, followedFile, active]);

  // Ctrl/Cmd+S anywhere in the IDE saves the active tab (inside Monaco its own action does it).
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "s" && !event.defaultPrevented) {
        event.preventDefault();
        const shown = tabs.getSnapshot().active;
        if (shown) void buffers.save(shown);
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [tabs, buffers]);

  const requestClose = (path: string) => {
    if (buffers.get(path)?.dirty) setClosing(path);
    else tabs.close(path);
  };

  useCommands(
    file
      ? [
          ...(file.kind === "text" && !file.readOnly
            ? [{ id: "file-save", label: `Save ${file.path}`, keys: "Ctrl+S", run: () => void buffers.save(file.path) }]
            : []),
          { id: "file-close", label: `Close ${file.path}`, run: () => requestClose(file.path) },
        ]
      : null,
  );

  return (
    <div className="pane editor-area" data-testid="editor-area">
      <EditorTabs
        files={files}
        active={active}
        onActivate={(p) => {
          tabs.follow(null);
          tabs.activate(p);
        }}
        onFollow={(name) => tabs.follow(name)}
        onClose={requestClose}
        changes={
          changes && {
            active: changesActive,
            label: "Changes",
            onActivate: () => tabs.activateChanges(),
            onClose: () => tabs.closeChanges(),
          }
        }
        gitDiff={
          gitDiff && {
            active: gitDiffActive,
            label: `${gitDiff.path.slice(gitDiff.path.lastIndexOf("/") + 1)} (${gitDiff.side === "index" ? "Index" : "Working Tree"})`,
            onActivate: () => tabs.activateGitDiff(),
            onClose: () => tabs.closeGitDiff(),
          }
        }
      />
      {gitDiff && gitDiffActive ? (
        <GitDiffView key={`${gitDiff.side}:${gitDiff.path}`} path={gitDiff.path} side={gitDiff.side} />
      ) : changes && changesActive ? (
        <ChangesView key={changes.sessionId} sessionId={changes.sessionId} />
      ) : file ? (
        <>
          <div className="breadcrumbs">
            <span data-testid="breadcrumbs">{file.path.split("/").join(" › ")}</span>
            <span className="spacer" />
            <SaveState file={file} />
          </div>
          {following && (
            <div className="banner banner-info" role="status" data-testid="follow-banner">
              <span className="banner-text">
                Following <strong>{following}</strong>: their file and cursor. Click or type in the editor to stop.
              </span>
              <button type="button" className="btn btn-sm" onClick={() => tabs.follow(null)}>
                Stop
              </button>
            </div>
          )}
          <FileBanners
            file={file}
            buffers={buffers}
            onClose={() => tabs.close(file.path)}
            gitConflicted={gitConflicted}
          />
          <FileBody file={file} />
        </>
      ) : (
        <div className="center-message" data-testid="editor-empty">
          <div>
            <p>Open a file from the explorer.</p>
            <p className="hint">
              <kbd>Ctrl</kbd>+<kbd>S</kbd> saves · middle-click closes a tab
            </p>
          </div>
          <EditorFontWarmUp />
        </div>
      )}
      {closing && <CloseDirtyDialog path={closing} onDone={() => setClosing(null)} />}
    </div>
  );
}

function FileBody({ file }: { file: FileBuffer }) {
  const tabs = useOpenTabs();
  const buffers = useFileBuffers();
  if (file.status === "loading" && (file.preview === undefined || file.preview.length > PLACEHOLDER_MAX_CHARS))
    return (
      <div className="center-message">
        Loading {file.path}…
        <EditorFontWarmUp now />
      </div>
    );
  if (file.status === "error") {
    return (
      <div className="center-message" data-testid="file-error">
        {file.error}
      </div>
    );
  }
  if (file.kind === "binary") {
    return (
      <div className="center-message" data-testid="binary-file">
        Binary file, {file.size.toLocaleString()} bytes, not shown.
      </div>
    );
  }
  return <FileEditor tabs={tabs} buffers={buffers} file={file} />;
}

/**
 * The editor of a text file, with the agent's changes not yet accepted in its gutter. Until Monaco
 * has drawn it (its code still loading, or the editor being made), the text shows as Monaco will
 * show it (text-placeholder.tsx), laid over the editor made underneath, from the plain read while
 * the file loads and the same view after: what is typed there meanwhile stays, and goes into the
 * file (early-typing.ts). Not for longer text.
 */
function FileEditor({ tabs, buffers, file }: { tabs: OpenTabs; buffers: FileBuffers; file: FileBuffer }) {
  const lineMarks = useAgentLineMarks(file.path);
  const { canWrite } = useExplorer();
  const { focus } = useTabsState();
  const restored = focus?.path === file.path && focus.restored;
  const [painted, setPainted] = useState(false);
  const onPainted = useCallback(() => setPainted(true), []);
  const loading = file.status === "loading";
  const text = loading ? (file.preview ?? "") : file.diskContent;
  const placeholder = !painted && text.length <= PLACEHOLDER_MAX_CHARS;
  return (
    <div className="editor-stack">
      {!loading && (
        <Deferred
          code={monacoPane}
          props={{ tabs, buffers, file, lineMarks, onPainted }}
          fallback={placeholder ? null : <div className="center-message">Loading editor…</div>}
        />
      )}
      {placeholder && (
        <TextPlaceholder
          key={file.path}
          text={text}
          view={tabs.restoredView(file.path)}
          typing={canWrite && !isDependency(file.path) ? typingOf(buffers, file, restored) : undefined}
        />
      )}
    </div>
  );
}

/** What the text shown before the editor is typed into: its live document once it is in (else what is typed waits for it, or for the editor). */
function typingOf(buffers: FileBuffers, file: FileBuffer, restored: boolean): EarlyTyping {
  return {
    path: file.path,
    connection: file.live ? buffers.liveConnection(file.path) : undefined,
    readOnly: file.status === "ready" && file.readOnly,
    restored,
  };
}

function SaveState({ file }: { file: FileBuffer }) {
  if (file.kind !== "text" || file.status !== "ready") return null;
  const label = file.saving
    ? "Saving…"
    : file.conflict
      ? "Conflict"
      : file.dirty
        ? "Unsaved changes"
        : file.readOnly
          ? "Read-only"
          : "Saved";
  return (
    <span data-testid="save-state" data-state={label.toLowerCase()}>
      {label}
    </span>
  );
}

function CloseDirtyDialog({ path, onDone }: { path: string; onDone: () => void }) {
  const tabs = useOpenTabs();
  const buffers = useFileBuffers();
  const name = path.slice(path.lastIndexOf("/") + 1);
  return (
    <Dialog title={`Save changes to ${name}?`} onClose={onDone} testId="close-dirty-dialog">
      <p>Your changes will be lost if you close this tab without saving.</p>
      <div className="dialog-actions">
        <button type="button" className="btn" onClick={onDone}>
          Cancel
        </button>
        <button
          type="button"
          className="btn"
          data-testid="close-discard"
          onClick={() => {
            tabs.close(path);
            onDone();
          }}
        >
          Don&apos;t save
        </button>
        <button
          type="button"
          className="btn btn-primary"
          data-testid="close-save"
          onClick={async () => {
            await buffers.save(path);
            if (!buffers.get(path)?.dirty) tabs.close(path);
            onDone();
          }}
        >
          Save
        </button>
      </div>
    </Dialog>
  );
}
