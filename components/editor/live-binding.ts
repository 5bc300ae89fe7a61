import * as Y from "yjs";
import * as monaco from "@/components/editor/monaco";
import type { LiveDocConnection } from "@/lib/live-doc-connection";
import "./live.css";

// Binds a Monaco model to a live document (lib/live-doc-connection.ts): typing becomes Yjs edits
// tagged with this binding as their origin, others' edits (and the disk's) are applied to the
// model, others' cursors and selections are drawn with their names, and undo and redo go through
// the connection's Yjs UndoManager, which tracks only this person's origins (this binding's, and
// the text typed into before the editor), so Ctrl+Z never takes back someone else's typing.
// Written here rather than taken from y-monaco, which imports the whole "monaco-editor" entry
// that components/editor/monaco.ts keeps out of the bundle.

export type LiveBinding = {
  undo(): void;
  redo(): void;
  /** The person's selection in this model, shown to the others (null: not looking at it). */
  select(selection: monaco.Selection | null): void;
  dispose(): void;
};

const bindings = new WeakMap<monaco.editor.ITextModel, LiveBinding>();

/** The binding of `model`, when it is a live document's. */
export const liveBindingOf = (model: monaco.editor.ITextModel | null) => (model ? bindings.get(model) : undefined);

/** Binds `model` to `connection` once; the binding ends with the model. */
export function bindLiveModel(model: monaco.editor.ITextModel, connection: LiveDocConnection): LiveBinding {
  const existing = bindings.get(model);
  if (existing) return existing;
  const origin = { binding: model.uri.toString() };
  let applying = false;
  let text = connection.text;
  // The person's history in this document, with what they typed before the editor was in.
  let undoManager = connection.undoHistory(origin);
  let decorations: string[] = [];
  let selection: monaco.Selection | null = null;

  const applyDelta = (event: Y.YTextEvent) => {
    if (event.transaction.origin === origin) return;
    applying = true;
    try {
      let index = 0;
      for (const op of event.delta) {
        if (op.retain !== undefined) index += op.retain;
        else if (typeof op.insert === "string") {
          const at = model.getPositionAt(index);
          model.applyEdits([
            { range: new monaco.Range(at.lineNumber, at.column, at.lineNumber, at.column), text: op.insert },
          ]);
          index += op.insert.length;
        } else if (op.delete !== undefined) {
          const from = model.getPositionAt(index);
          const to = model.getPositionAt(index + op.delete);
          model.applyEdits([
            { range: new monaco.Range(from.lineNumber, from.column, to.lineNumber, to.column), text: "" },
          ]);
        }
      }
    } finally {
      applying = false;
    }
    drawPeers();
  };

  const adopt = () => {
    if (model.getValue() !== text.toString()) {
      applying = true;
      model.setValue(text.toString());
      applying = false;
    }
    text.observe(applyDelta);
  };

  const contentListener = model.onDidChangeContent((event) => {
    if (applying) return;
    text.doc?.transact(() => {
      for (const change of [...event.changes].sort((a, b) => b.rangeOffset - a.rangeOffset)) {
        if (change.rangeLength) text.delete(change.rangeOffset, change.rangeLength);
        if (change.text) text.insert(change.rangeOffset, change.text);
      }
    }, origin);
  });

  const offsetOf = (position: unknown) => {
    try {
      const absolute = Y.createAbsolutePositionFromRelativePosition(
        Y.createRelativePositionFromJSON(position),
        connection.doc,
      );
      return absolute?.type === text ? absolute.index : null;
    } catch {
      return null; // a peer's position from before a reset, or malformed
    }
  };

  function drawPeers() {
    const next: monaco.editor.IModelDeltaDecoration[] = [];
    for (const [id, peer] of connection.peers()) {
      paintPeer(id, peer.user);
      if (!peer.selection) continue;
      const anchor = offsetOf(peer.selection.anchor);
      const head = offsetOf(peer.selection.head);
      if (anchor === null || head === null) continue;
      const start = model.getPositionAt(Math.min(anchor, head));
      const end = model.getPositionAt(Math.max(anchor, head));
      const at = model.getPositionAt(head);
      if (anchor !== head)
        next.push({
          range: new monaco.Range(start.lineNumber, start.column, end.lineNumber, end.column),
          options: { className: `live-selection live-selection-${id}`, hoverMessage: { value: peer.user.name } },
        });
      next.push({
        range: new monaco.Range(at.lineNumber, at.column, at.lineNumber, at.column),
        options: {
          beforeContentClassName: `live-caret live-caret-${id}`,
          hoverMessage: { value: peer.user.name },
          stickiness: monaco.editor.TrackedRangeStickiness.NeverGrowsWhenTypingAtEdges,
        },
      });
    }
    decorations = model.deltaDecorations(decorations, next);
  }

  const publishSelection = () => {
    if (!selection) return connection.awareness.setLocalStateField("selection", null);
    const position = (offset: number) => Y.relativePositionToJSON(Y.createRelativePositionFromTypeIndex(text, offset));
    connection.awareness.setLocalStateField("selection", {
      anchor: position(model.getOffsetAt(selection.getSelectionStart())),
      head: position(model.getOffsetAt(selection.getPosition())),
    });
  };

  const onAwareness = () => drawPeers();
  connection.awareness.on("change", onAwareness);
  adopt();

  const stopReset = connection.onReset(() => {
    text.unobserve(applyDelta);
    text = connection.text;
    undoManager = connection.undoHistory(origin);
    adopt();
    connection.awareness.on("change", onAwareness);
    drawPeers();
  });

  const binding: LiveBinding = {
    undo: () => void undoManager.undo(),
    redo: () => void undoManager.redo(),
    select(next) {
      selection = next;
      publishSelection();
    },
    dispose() {
      bindings.delete(model);
      stopReset();
      text.unobserve(applyDelta);
      connection.awareness.off("change", onAwareness);
      undoManager.removeTrackedOrigin(origin);
      contentListener.dispose();
      if (!model.isDisposed()) model.deltaDecorations(decorations, []);
    },
  };
  bindings.set(model, binding);
  model.onWillDispose(() => binding.dispose());
  return binding;
}

const painted = new Map<number, string>();
let sheet: HTMLStyleElement | null = null;

/** A peer's colour and name label, one CSS rule set per awareness client. */
function paintPeer(id: number, user: { name: string; color: string }) {
  const color = /^#[0-9a-f]{6}$/i.test(user.color) ? user.color : "#888888";
  const label = user.name
    .replace(/[\\"]/g, "\\$&")
    .replace(/[\n\r]/g, " ")
    .slice(0, 60);
  const rules =
    `.live-selection-${id}{background-color:${color}40}` +
    `.live-caret-${id}{border-left-color:${color}}` +
    `.live-caret-${id}::after{content:"${label}";background-color:${color}}`;
  if (painted.get(id) === rules) return;
  painted.set(id, rules);
  sheet ??= document.head.appendChild(document.createElement("style"));
  sheet.textContent = [...painted.values()].join("\n");
}
