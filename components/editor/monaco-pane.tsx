"use client";

// Loaded only in the browser, lazily (editor-area.tsx, through DeferredCode, once the IDE is on
// screen): Monaco comes from the local package, never from a CDN, and its code stays off the
// first paint; the file's text shows before it (text-placeholder.tsx).
import { DiffEditor, Editor, loader, type OnMount } from "@monaco-editor/react";
import * as monaco from "@/components/editor/monaco";
import { useEffect, useState } from "react";
import { useDisposeDiffModels } from "@/components/editor/diff-models";
import { installMonacoEnvironment, MONACO_WRAPPER } from "@/components/editor/monaco-environment";
import { type FileBuffer, isDependency } from "@/components/editor/file-buffer";
import { type Handover, takeHandover, typedOnto } from "@/components/editor/early-typing";
import type { FileBuffers } from "@/components/editor/file-buffers";
import { useTabsState } from "@/components/editor/open-files-context";
import type { OpenTabs } from "@/components/editor/open-tabs";
import { useLineMarks, type LineMark } from "@/components/editor/line-marks";
import { useTheme } from "@/components/ui/theme";
import { installLanguageClient } from "@/components/editor/language/language-client";
import { adoptPreviewModel, isPreviewModel } from "@/components/editor/language/peek-models";
import { useLanguageSession, type LanguageSession } from "@/components/editor/language/language-session";
import { bindLiveModel, liveBindingOf } from "@/components/editor/live-binding";
import { EDITOR_FONT } from "@/components/editor/text-placeholder";
import { keyboardFree } from "@/components/editor/restored-focus";

installMonacoEnvironment();
loader.config({ monaco });
// When the editor's code has loaded and run: bench:ui reports it beside the explorer and the file's text.
performance.mark("tandem:editor-code");

const uriOf = (path: string) => monaco.Uri.file(`/${path}`);
const pathOf = (model: monaco.editor.ITextModel) => model.uri.path.slice(1);

const EDITOR_OPTIONS: monaco.editor.IStandaloneEditorConstructionOptions = {
  ...EDITOR_FONT,
  minimap: { enabled: true, renderCharacters: false },
  scrollBeyondLastLine: false,
  automaticLayout: true,
  tabSize: 2,
  renderWhitespace: "selection",
  smoothScrolling: true,
};

function createFileModel(buffers: FileBuffers, path: string, content: string) {
  const model = monaco.editor.createModel(content, undefined, uriOf(path));
  model.onDidChangeContent(() => buffers.modelChanged(path, model.getAlternativeVersionId()));
  return model;
}

function ensureModel(buffers: FileBuffers, file: FileBuffer) {
  let model = monaco.editor.getModel(uriOf(file.path));
  // A file first shown in a peek view becomes a tab's buffer.
  if (model && isPreviewModel(model)) {
    adoptPreviewModel(model);
    if (model.getValue() !== file.diskContent) model.setValue(file.diskContent);
    model.onDidChangeContent(() => buffers.modelChanged(file.path, model!.getAlternativeVersionId()));
    buffers.modelCreated(file.path, model.getAlternativeVersionId());
  }
  if (!model) {
    model = createFileModel(buffers, file.path, file.diskContent);
    buffers.modelCreated(file.path, model.getAlternativeVersionId());
  }
  const live = file.live ? buffers.liveConnection(file.path) : undefined;
  if (live) bindLiveModel(model, live);
  return model;
}

/** Where the editor should jump once a file opened from a definition, a reference or a problem is shown. */
let pendingReveal: { path: string; line: number; column: number } | null = null;
let currentEditor: monaco.editor.ICodeEditor | null = null;

function revealPending(editor: monaco.editor.ICodeEditor) {
  const model = editor.getModel();
  if (!pendingReveal || !model || pathOf(model) !== pendingReveal.path) return;
  const { line, column } = pendingReveal;
  pendingReveal = null;
  editor.setPosition({ lineNumber: line, column });
  editor.revealPositionInCenter({ lineNumber: line, column });
  editor.focus();
}

/** Selects the place a search result asked for in the editor's file, centred, and types from there. */
function selectReveal(tabs: OpenTabs, editor: monaco.editor.ICodeEditor) {
  const model = editor.getModel();
  const at = model && tabs.takeReveal(pathOf(model));
  if (!at) return;
  const range = new monaco.Range(at.line, at.column, at.line, at.column + at.length);
  editor.setSelection(range);
  editor.revealRangeInCenterIfOutsideViewport(range);
  editor.focus();
}

/** The editor takes over from the text typed into before it was in (early-typing.ts): its selection and scroll, and the keyboard when it has it. */
function takeKeyboard(editor: monaco.editor.ICodeEditor, handover: Handover) {
  const model = editor.getModel();
  if (!model) return;
  let { anchor: anchorAt, head: headAt } = handover;
  // Typed where no live document took it: one edit of the model (undoable, unsaved), onto its
  // text as read now, with the caret after it.
  if (handover.typed) {
    const current = model.getValue();
    const { change, caret } = typedOnto(handover.typed, current);
    const from = model.getPositionAt(change.at);
    const to = model.getPositionAt(change.at + change.removed);
    model.pushStackElement();
    model.pushEditOperations(
      [],
      [{ range: new monaco.Range(from.lineNumber, from.column, to.lineNumber, to.column), text: change.inserted }],
      () => null,
    );
    model.pushStackElement();
    if (current !== handover.typed.base) anchorAt = headAt = caret;
  }
  const anchor = model.getPositionAt(anchorAt);
  const head = model.getPositionAt(headAt);
  editor.setSelection(new monaco.Selection(anchor.lineNumber, anchor.column, head.lineNumber, head.column));
  editor.setScrollPosition(
    { scrollTop: handover.scrollTop, scrollLeft: handover.scrollLeft },
    monaco.editor.ScrollType.Immediate,
  );
  if (handover.focused) editor.focus();
}

/** Opens a workspace file in a tab (dependencies read-only) and puts the cursor at a position. */
function openAt(tabs: OpenTabs, path: string, line: number, column: number) {
  pendingReveal = { path, line, column };
  void tabs.open(path).then(() => {
    if (currentEditor) revealPending(currentEditor);
  });
}

let opener: monaco.IDisposable | null = null;
let attachedTo: { tabs: OpenTabs; session: LanguageSession } | null = null;

function attachLanguage(tabs: OpenTabs, session: LanguageSession | null) {
  if (!session || (attachedTo?.tabs === tabs && attachedTo.session === session)) return;
  attachedTo = { tabs, session };
  installLanguageClient(session);
  session.reveal = (path, line, column) => openAt(tabs, path, line, column);
  // Go to definition into another file: Monaco alone only knows the file on screen.
  opener?.dispose();
  opener = monaco.editor.registerEditorOpener({
    openCodeEditor(_source, resource, selection) {
      if (resource.scheme !== "file") return false;
      const at =
        selection && "startLineNumber" in selection
          ? { line: selection.startLineNumber, column: selection.startColumn }
          : selection
            ? { line: selection.lineNumber, column: selection.column }
            : { line: 1, column: 1 };
      openAt(tabs, resource.path.slice(1), at.line, at.column);
      return true;
    },
  });
}

// The bridge outlives any one editor widget: buffers stay in their models while no editor shows them.
function attachBridge(buffers: FileBuffers) {
  if (buffers.hasBridge) return;
  buffers.setBridge({
    snapshot(path) {
      const model = monaco.editor.getModel(uriOf(path));
      return model && { content: model.getValue(), altVersion: model.getAlternativeVersionId() };
    },
    replace(path, content) {
      const model = monaco.editor.getModel(uriOf(path));
      if (!model) return null;
      if (model.getValue() !== content) {
        model.pushStackElement();
        model.pushEditOperations([], [{ range: model.getFullModelRange(), text: content }], () => null);
        model.pushStackElement();
      }
      return model.getAlternativeVersionId();
    },
    rename(from, to) {
      const model = monaco.editor.getModel(uriOf(from));
      if (!model) return null;
      monaco.editor.getModel(uriOf(to))?.dispose();
      const moved = createFileModel(buffers, to, model.getValue());
      model.dispose();
      return moved.getAlternativeVersionId();
    },
    dispose(path) {
      monaco.editor.getModel(uriOf(path))?.dispose();
    },
    disposeAll() {
      for (const model of monaco.editor.getModels()) if (model.uri.scheme === "file") model.dispose();
    },
  });
}

/**
 * `lineMarks`: the agent's changes not yet accepted, in the gutter (given by the review,
 * components/review). `onPainted`: told once the editor has drawn its text (what showed the text
 * before it can go, editor-area.tsx).
 */
export type MonacoPaneProps = {
  tabs: OpenTabs;
  buffers: FileBuffers;
  file: FileBuffer;
  lineMarks: readonly LineMark[];
  onPainted?: () => void;
};

export default function MonacoPane({ tabs, buffers, file, lineMarks, onPainted }: MonacoPaneProps) {
  attachBridge(buffers);
  const language = useLanguageSession();
  attachLanguage(tabs, language);
  const model = ensureModel(buffers, file);
  const [editor, setEditor] = useState<monaco.editor.ICodeEditor | null>(null);
  const agentLines = useLineMarks(monaco, editor, lineMarks);
  const { monacoTheme } = useTheme();
  const { reveal, focus, following } = useTabsState();

  // A search result asked for a place in this file (shown already, or shown now in this editor).
  useEffect(() => {
    if (editor && reveal?.path === file.path) selectReveal(tabs, editor);
  }, [editor, reveal, file.path, tabs]);

  // Quick Open asked for the keyboard here (typing goes on in the file that was chosen), or the
  // tabs were restored with this one active (unless the person put the keyboard elsewhere since).
  // Through Monaco's own focus(): its input is not always a textarea (EditContext in newer Chromium).
  useEffect(() => {
    if (!editor || focus?.path !== file.path) return;
    const asked = tabs.takeFocus(file.path);
    if (asked && (!asked.restored || keyboardFree(editor.getContainerDomNode().closest(".editor-stack"))))
      editor.focus();
  }, [editor, focus, file.path, tabs]);

  // Follow mode: the followed person's cursor stays in view as it moves.
  useEffect(() => {
    const connection = following && editor ? buffers.liveConnection(file.path) : undefined;
    if (!connection || !editor || !following) return;
    const show = () => {
      const at = buffers.peerHead(file.path, following);
      const model = editor.getModel();
      if (at === null || !model || pathOf(model) !== file.path) return;
      editor.revealPositionInCenterIfOutsideViewport(model.getPositionAt(at));
    };
    show();
    connection.awareness.on("change", show);
    return () => connection.awareness.off("change", show);
  }, [editor, following, buffers, file.path]);

  const diskUri = monaco.Uri.from({ scheme: "disk", path: `/${file.path}` }).toString();
  const comparing = file.comparing && file.conflict?.kind === "changed";
  // The disk side of a conflict's diff is this view's own; the modified side is the file's model.
  useDisposeDiffModels(comparing ? [diskUri] : []);

  // Scroll and cursor are remembered with the tabs (open-tabs.ts), so a tab reopened after a
  // reload or a visit to settings shows the file where it was left.
  useEffect(() => {
    if (!editor) return;
    const path = file.path;
    const restored = tabs.takeRestoredView(path);
    if (restored) editor.restoreViewState(restored as monaco.editor.ICodeEditorViewState);
    // Typed into before the editor was in (or given the keyboard there): it goes on where the person left it.
    const handover = takeHandover(path);
    if (handover) takeKeyboard(editor, handover);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const save = () => {
      timer = undefined;
      if (editor.getModel()?.uri.toString() === uriOf(path).toString()) tabs.rememberView(path, editor.saveViewState());
    };
    const remember = () => {
      clearTimeout(timer);
      timer = setTimeout(save, 300);
    };
    const listeners = [editor.onDidScrollChange(remember), editor.onDidChangeCursorPosition(remember)];
    // Leaving the tab (or the page) inside the 300 ms window still keeps where it was.
    const flush = () => {
      if (timer === undefined) return;
      clearTimeout(timer);
      save();
    };
    window.addEventListener("pagehide", flush);
    return () => {
      flush();
      window.removeEventListener("pagehide", flush);
      listeners.forEach((listener) => listener.dispose());
    };
  }, [editor, tabs, file.path]);

  const onMount: OnMount = (editor) => {
    setEditor(editor);
    currentEditor = editor;
    // Monaco draws its lines in the next animation frame; the frame after has them on screen.
    if (onPainted) requestAnimationFrame(() => requestAnimationFrame(onPainted));
    editor.onDidChangeModel(() => revealPending(editor));
    revealPending(editor);
    // A file opened from a search result: selected as the editor is made, not a render later, when
    // its text may be on screen already and keys typed at it would find no focus.
    selectReveal(tabs, editor);
    // VS Code's key on every platform (Monaco binds Ctrl+Shift+I on Linux).
    editor.addAction({
      id: "tandem.formatDocument",
      label: "Format Document",
      keybindings: [monaco.KeyMod.Shift | monaco.KeyMod.Alt | monaco.KeyCode.KeyF],
      run: (ed) => ed.getAction("editor.action.formatDocument")?.run(),
    });
    editor.addAction({
      id: "tandem.workspaceSymbols",
      label: "Go to Symbol in Workspace…",
      keybindings: [monaco.KeyMod.CtrlCmd | monaco.KeyCode.KeyT],
      run: () => language?.showSymbolSearch?.(),
    });
    // In a live document undo and redo take back only this person's edits (live-binding.ts).
    const liveOr = (run: (binding: NonNullable<ReturnType<typeof liveBindingOf>>) => void, fallback: string) => () => {
      const binding = liveBindingOf(editor.getModel());
      if (binding) run(binding);
      else editor.trigger("keyboard", fallback, null);
    };
    editor.addCommand(
      monaco.KeyMod.CtrlCmd | monaco.KeyCode.KeyZ,
      liveOr((b) => b.undo(), "undo"),
    );
    editor.addCommand(
      monaco.KeyMod.CtrlCmd | monaco.KeyMod.Shift | monaco.KeyCode.KeyZ,
      liveOr((b) => b.redo(), "redo"),
    );
    editor.addCommand(
      monaco.KeyMod.CtrlCmd | monaco.KeyCode.KeyY,
      liveOr((b) => b.redo(), "redo"),
    );
    // Moving in the editor stops following someone.
    editor.onMouseDown(() => tabs.follow(null));
    editor.onKeyDown(() => tabs.follow(null));
    // Others see where this person is in a live document.
    editor.onDidChangeCursorSelection((event) => liveBindingOf(editor.getModel())?.select(event.selection));
    editor.onDidChangeModel((event) => {
      const left = event.oldModelUrl && monaco.editor.getModel(event.oldModelUrl);
      if (left) liveBindingOf(left)?.select(null);
    });
    editor.addAction({
      id: "tandem.save",
      label: "File: Save",
      keybindings: [monaco.KeyMod.CtrlCmd | monaco.KeyCode.KeyS],
      run: (ed) => {
        const current = ed.getModel();
        if (current) void buffers.save(pathOf(current));
      },
    });
  };

  if (comparing && file.conflict?.kind === "changed") {
    return (
      <div className="editor-host diff-host" data-testid="diff-editor">
        <div className="diff-labels">
          <span>On disk now</span>
          <span>Yours (unsaved; editable)</span>
        </div>
        <DiffEditor
          wrapperProps={MONACO_WRAPPER}
          theme={monacoTheme}
          original={file.conflict.disk.content}
          originalLanguage={model.getLanguageId()}
          modifiedLanguage={model.getLanguageId()}
          originalModelPath={diskUri}
          modifiedModelPath={model.uri.toString()}
          keepCurrentOriginalModel
          keepCurrentModifiedModel
          options={{ ...EDITOR_OPTIONS, readOnly: file.readOnly, originalEditable: false, renderSideBySide: true }}
          onMount={(diff) => onMount(diff.getModifiedEditor(), monaco)}
        />
      </div>
    );
  }

  return (
    <div className="editor-host" data-testid="editor" data-agent-lines={agentLines}>
      <Editor
        wrapperProps={MONACO_WRAPPER}
        theme={monacoTheme}
        path={model.uri.toString()}
        keepCurrentModel
        options={{ ...EDITOR_OPTIONS, readOnly: file.readOnly || isDependency(file.path) }}
        onMount={onMount}
        loading={<div className="center-message">Loading editor…</div>}
      />
    </div>
  );
}
