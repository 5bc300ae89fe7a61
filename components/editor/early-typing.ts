import type { YTextEvent } from "yjs";
import type { LiveDocConnection } from "@/lib/live-doc-connection";

// Typing into a live document's text before the editor's code is in (text-placeholder.tsx draws
// the text; on a cold load Monaco takes typing ~0.5-0.7 s after the text shows). A plain textarea
// laid over the drawn lines, its own text transparent, takes the keys: the browser's caret,
// selection, IME and undo are the textarea's own, so no key is replayed or interpreted here. Each
// change it reports becomes one edit of the live document (its common prefix and suffix kept, as
// Monaco's binding sends a change), so the typing is the document's at once: the others see it,
// a save writes it, and Monaco, bound to the same document once it is made, shows it. The others'
// edits meanwhile come into the textarea with its selection moved as they move the text. Monaco
// then takes the keyboard where the person left it (takeHandover), and the textarea takes no more.
//
// Before the live document is in (the text of a plain read while its socket connects), what is
// typed waits here and then goes onto the document's text as it is by then (rebase); a file that
// never becomes a live document gets it as one edit of Monaco's model at the handover. Not for
// text with carriage returns (a textarea's value turns "\r\n" into "\n", and its offsets would no
// longer be the document's) nor for long text (a textarea lays all of it out).

/** Longest text the textarea takes (a textarea lays out all of it, where the drawn lines are only those on screen). */
export const EARLY_TYPING_MAX_CHARS = 256 * 1024;

/** Whether `text` can be typed into before the editor is in. */
export const earlyTypable = (text: string) => text.length <= EARLY_TYPING_MAX_CHARS && !text.includes("\r");

/**
 * Where the person left the textarea: the selection as document offsets, the scroll in pixels,
 * and what they typed when no live document took it (the editor puts it into its model).
 */
export type Handover = {
  anchor: number;
  head: number;
  scrollTop: number;
  scrollLeft: number;
  /** Whether the textarea has the keyboard now (the editor takes it only then). */
  focused: boolean;
  typed?: Typed;
};

const offers = new Map<string, () => Handover | null>();

/** The textarea of `path` offers the keyboard to the editor; returns the function that withdraws it. */
export function offerHandover(path: string, take: () => Handover | null): () => void {
  offers.set(path, take);
  return () => {
    if (offers.get(path) === take) offers.delete(path);
  };
}

/**
 * For the editor just made for `path`: where the person left the textarea, when they put the
 * keyboard there (null otherwise: the editor restores the tab's remembered view instead). The
 * textarea takes no input after this; the editor focuses itself where it says.
 */
export function takeHandover(path: string): Handover | null {
  const take = offers.get(path);
  offers.delete(path);
  return take ? take() : null;
}

/** The one change from `before` to `after`: what is kept at both ends, and what lies between. */
export function changeOf(before: string, after: string): { at: number; removed: number; inserted: string } {
  const most = Math.min(before.length, after.length);
  let start = 0;
  while (start < most && before.charCodeAt(start) === after.charCodeAt(start)) start++;
  // Not between the halves of a surrogate pair: the document would hold half a character.
  if (start > 0 && isHighSurrogate(before.charCodeAt(start - 1))) start--;
  let end = 0;
  while (end < most - start && before.charCodeAt(before.length - 1 - end) === after.charCodeAt(after.length - 1 - end))
    end++;
  if (end > 0 && isLowSurrogate(before.charCodeAt(before.length - end))) end--;
  return { at: start, removed: before.length - start - end, inserted: after.slice(start, after.length - end) };
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;

/** `offset` in the text before `delta` (a Yjs text change), as an offset in the text after it; text inserted at it goes after it. */
export function mapOffset(offset: number, delta: YTextEvent["delta"]): number {
  let index = 0;
  let moved = offset;
  for (const op of delta) {
    if (index > offset) break;
    if (op.retain !== undefined) index += op.retain;
    else if (typeof op.insert === "string") {
      if (index < offset) moved += op.insert.length;
    } else if (op.delete !== undefined) {
      if (index < offset) moved -= Math.min(op.delete, offset - index);
      index += op.delete;
    }
  }
  return moved;
}

/** A change to a text: `removed` characters at `at` replaced by `inserted`. */
export type Change = { at: number; removed: number; inserted: string };

/**
 * `mine`, made to a text, as a change to that text after `theirs` (made to the same text) was
 * applied. Apart, each keeps its place; where they overlap, theirs stands and mine's inserted
 * text goes right after it: what the person typed is never dropped, only what they deleted
 * there may stay.
 */
export function rebase(mine: Change, theirs: Change): Change {
  if (theirs.removed === 0 && theirs.inserted === "") return mine;
  if (mine.at + mine.removed <= theirs.at) return mine;
  if (theirs.at + theirs.removed <= mine.at) return { ...mine, at: mine.at + theirs.inserted.length - theirs.removed };
  return { at: theirs.at + theirs.inserted.length, removed: 0, inserted: mine.inserted };
}

/** `offset` in a text, in that text after `change`: inside what it replaced, at the end of what it put there. */
export function offsetThrough(offset: number, change: Change): number {
  if (offset <= change.at) return offset;
  if (offset >= change.at + change.removed) return offset + change.inserted.length - change.removed;
  return change.at + change.inserted.length;
}

/** What the person typed before any document took it: the text they started from, and theirs now. */
export type Typed = { base: string; text: string };

/** `typed` as one change to `current` (the text its base became meanwhile), and where its caret ends. */
export function typedOnto(typed: Typed, current: string): { change: Change; caret: number } {
  const change = rebase(changeOf(typed.base, typed.text), changeOf(typed.base, current));
  return { change, caret: change.at + change.inserted.length };
}

/** How long early typing's text goes without a key before the editor's code may run (typingPause). */
export const TYPING_PAUSE_MS = 400;

/** How many textareas take early typing now, and since when none of them has had a key or the keyboard put into it. */
const typing = { bound: 0, quietSince: 0 };

/** A key, or the keyboard, went into early typing's text: the pause starts again from now. */
export function typed() {
  typing.quietSince = performance.now();
}

/** A textarea took early typing (+1) or gave it up (-1); the pause starts again from now. */
export function typingBound(change: 1 | -1) {
  typing.bound = Math.max(0, typing.bound + change);
  typed();
}

/**
 * Resolves once no key has gone into early typing's text for `ms` (at once when no text takes
 * typing). The editor's code waits for it (editor-area.tsx): its run holds the page's thread for
 * 100-300 ms, which a key typed meanwhile waited out before it showed, so on a reload the first
 * keys typed into the restored text stalled. It comes between keys instead.
 */
export function typingPause(ms = TYPING_PAUSE_MS): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      const wait = typing.bound === 0 ? 0 : typing.quietSince + ms - performance.now();
      if (wait <= 0) resolve();
      else setTimeout(check, wait);
    };
    check();
  });
}

/**
 * Binds `area` (lines `lineHeight` px apart) to the text `base`, as the person types into it: held
 * here until `connect` gives the live document (the text may have come from a plain read while
 * its socket connected), then put into the document; after that each change goes into it at once
 * and the others' come into the textarea. `shown` is told the text after each. The handover gives
 * the editor the selection, the scroll and, when no document came, what was typed (Monaco puts
 * it into its model); the textarea takes no input after it.
 */
export function bindEarlyTyping(
  area: HTMLTextAreaElement,
  base: string,
  lineHeight: number,
  shown: (text: string) => void,
) {
  const origin = { earlyTyping: true };
  let live: { connection: LiveDocConnection; text: LiveDocConnection["text"]; stopReset: () => void } | null = null;
  let value = base;
  let handedOver = false;
  let touched = false;
  area.value = value;
  typingBound(1);

  const show = (
    next: string,
    selection?: { start: number; end: number; direction: typeof area.selectionDirection },
  ) => {
    const { scrollTop, scrollLeft } = area;
    value = next;
    area.value = value;
    if (selection) area.setSelectionRange(selection.start, selection.end, selection.direction);
    area.scrollTop = scrollTop;
    area.scrollLeft = scrollLeft;
    shown(value);
  };
  const onInput = () => {
    if (handedOver) return;
    typed();
    const next = area.value;
    const { at, removed, inserted } = changeOf(value, next);
    value = next;
    if (live) {
      const { text } = live;
      live.connection.doc.transact(() => {
        if (removed) text.delete(at, removed);
        if (inserted) text.insert(at, inserted);
      }, origin);
    }
    shown(value);
  };
  const onChange = (event: YTextEvent) => {
    if (event.transaction.origin === origin || !live) return;
    const selection = {
      start: mapOffset(area.selectionStart, event.delta),
      end: mapOffset(area.selectionEnd, event.delta),
      direction: area.selectionDirection,
    };
    show(live.text.toString(), selection);
  };
  const adopt = () => {
    if (!live) return;
    live.text.unobserve(onChange);
    live.text = live.connection.text;
    live.connection.undoHistory(origin);
    live.text.observe(onChange);
    show(live.text.toString());
  };
  // The browser's insertion (below) does not always scroll its caret into view, as typing does.
  const revealCaret = () => {
    const top = (value.slice(0, area.selectionEnd).split("\n").length - 1) * lineHeight;
    if (top < area.scrollTop) area.scrollTop = top;
    else if (top + lineHeight > area.scrollTop + area.clientHeight)
      area.scrollTop = top + lineHeight - area.clientHeight;
  };
  // A newline keeps the line's indentation, and Tab indents, as the editor would: through the
  // browser's own insertion, so its undo takes them back with the rest.
  const onKeyDown = (event: KeyboardEvent) => {
    if (!handedOver) typed();
    if (handedOver || area.readOnly || event.isComposing || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.key === "Enter" && !event.shiftKey) {
      const lineStart = value.lastIndexOf("\n", area.selectionStart - 1) + 1;
      const indent = /^[ \t]*/.exec(value.slice(lineStart, area.selectionStart))![0];
      event.preventDefault();
      document.execCommand("insertText", false, `\n${indent}`);
      revealCaret();
    } else if (event.key === "Tab" && !event.shiftKey) {
      event.preventDefault();
      document.execCommand("insertText", false, /^\t/m.test(value) ? "\t" : "  ");
    }
  };
  const onFocus = () => {
    touched = true;
    typed();
  };

  area.addEventListener("input", onInput);
  area.addEventListener("keydown", onKeyDown);
  area.addEventListener("focus", onFocus);
  if (document.activeElement === area) touched = true;

  return {
    /**
     * The live document came: what was typed meanwhile goes into it (onto its text, which others
     * may have changed since `base` was read), and from now on each change does. Not when the
     * document is read-only to this person: then what was typed waits for the editor.
     */
    connect(connection: LiveDocConnection) {
      if (live || handedOver || connection.state?.readOnly) return;
      // What is typed here is the first of the person's undo history in the document, which the
      // editor then continues: its Ctrl+Z takes it back too.
      connection.undoHistory(origin);
      const text = connection.text;
      const current = text.toString();
      live = { connection, text, stopReset: connection.onReset(adopt) };
      text.observe(onChange);
      if (value === current) return; // the textarea holds the document's text already
      const theirs = changeOf(base, current);
      const typed = value !== base;
      const { change, caret } = typedOnto({ base, text: value }, current);
      if (typed)
        connection.doc.transact(() => {
          if (change.removed) text.delete(change.at, change.removed);
          if (change.inserted) text.insert(change.at, change.inserted);
        }, origin);
      // Typed onto the text as read: the caret stays; otherwise it follows what was typed, or
      // (nothing typed) moves with the others' change.
      const selection =
        typed && current === base
          ? { start: area.selectionStart, end: area.selectionEnd, direction: area.selectionDirection }
          : typed
            ? { start: caret, end: caret, direction: "none" as const }
            : {
                start: offsetThrough(area.selectionStart, theirs),
                end: offsetThrough(area.selectionEnd, theirs),
                direction: area.selectionDirection,
              };
      show(text.toString(), selection);
    },
    handover(): Handover | null {
      if (handedOver || !touched) return null;
      handedOver = true;
      area.readOnly = true;
      const backward = area.selectionDirection === "backward";
      return {
        anchor: backward ? area.selectionEnd : area.selectionStart,
        head: backward ? area.selectionStart : area.selectionEnd,
        scrollTop: area.scrollTop,
        scrollLeft: area.scrollLeft,
        focused: document.activeElement === area,
        ...(!live && value !== base ? { typed: { base, text: value } } : {}),
      };
    },
    dispose() {
      typingBound(-1);
      live?.text.unobserve(onChange);
      live?.stopReset();
      area.removeEventListener("input", onInput);
      area.removeEventListener("keydown", onKeyDown);
      area.removeEventListener("focus", onFocus);
    },
  };
}
