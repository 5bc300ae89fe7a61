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
import { useBuffersState, useFileBuffers, useOpenTabs, useTabsState } from "@/components/editor/open-files-context";
import { useCommands } from "@/components/ui/commands";
import { Dialog } from "@/components/ui/dialog";
import { useRegisterChangesHost } from "@/components/review/active-session";
import { afterPaint } from "@/components/ui/after-paint";
import { useGitConflicted } from "@/components/git/git-context";
import { ChangesView, GitDiffView } from "@/components/ide/deferred-panels";
import { useAgentLineMarks } from "@/components/review/agent-line-marks";

const monacoPane = new DeferredCode<MonacoPaneProps>(() =>
  import("@/components/editor/monaco-pane").then((module) => module.default),
);

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

  // Monaco is the IDE's largest chunk: fetched and evaluated as soon as the IDE is on screen, so
  // the first file opened waits for neither (bench:ui measured it starting only on that click);
  // its text shows meanwhile (FileEditor). Asked for once the IDE's first frame is painted, not in
  // it: the browser compiles the arriving scripts on the renderer's thread pool, and the first
  // frame's layout waits on that pool for the browser's answer about each new font size and weight
  // (~180 ms of a cold load under load, while Monaco's chunks streamed in).
  // Monaco's icon font (codicon, display: block; its face is declared by app/layout.tsx) loads
  // once a glyph of it is drawn: after the editor's first frame, so the folding arrows were blank
  // and its arrival re-resolved the page's fonts (~110 ms later, as the first keys were typed).
  // Asked for with the editor's code instead.
  useEffect(
    () =>
      afterPaint(() => {
        void monacoPane.preload();
        void document.fonts?.load("16px codicon");
      }),
    [],
  );

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
  if (file.status === "loading") {
    if (file.preview === undefined || file.preview.length > PLACEHOLDER_MAX_CHARS)
      return (
        <div className="center-message">
          Loading {file.path}…
          <EditorFontWarmUp now />
        </div>
      );
    return (
      <div className="editor-stack">
        <TextPlaceholder key={file.path} text={file.preview} view={tabs.restoredView(file.path)} />
      </div>
    );
  }
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
 * show it (text-placeholder.tsx), laid over the editor made underneath. Not for longer text.
 */
function FileEditor({ tabs, buffers, file }: { tabs: OpenTabs; buffers: FileBuffers; file: FileBuffer }) {
  const lineMarks = useAgentLineMarks(file.path);
  const [painted, setPainted] = useState(false);
  const onPainted = useCallback(() => setPainted(true), []);
  const placeholder = !painted && file.diskContent.length <= PLACEHOLDER_MAX_CHARS;
  return (
    <div className="editor-stack">
      <Deferred
        code={monacoPane}
        props={{ tabs, buffers, file, lineMarks, onPainted }}
        fallback={placeholder ? null : <div className="center-message">Loading editor…</div>}
      />
      {placeholder && (
        <TextPlaceholder
          key={file.path}
          text={file.diskContent}
          view={tabs.restoredView(file.path)}
          typing={typingOf(buffers, file)}
        />
      )}
    </div>
  );
}

/** The live document the text shown before the editor takes typing into (none for a plain read). */
function typingOf(buffers: FileBuffers, file: FileBuffer): EarlyTyping | undefined {
  const connection = file.live ? buffers.liveConnection(file.path) : undefined;
  return connection && { path: file.path, connection, readOnly: file.readOnly || isDependency(file.path) };
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
