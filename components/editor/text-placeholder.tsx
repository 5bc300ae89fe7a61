"use client";

import { useEffect, useLayoutEffect, useRef, useState } from "react";
import * as v from "valibot";
import { afterPaint } from "@/components/ui/after-paint";
import { bindEarlyTyping, earlyTypable, offerHandover } from "@/components/editor/early-typing";
import { keyboardFree } from "@/components/editor/restored-focus";
import { PREVIEW_MAX_BYTES } from "@/lib/first-screen";
import type { LiveDocConnection } from "@/lib/live-doc-connection";

// A file's text as the editor will show it, drawn before the editor's code (Monaco, ~3.8 MB of
// script) has loaded and run: on a cold load the text is in 100-300 ms before it. Laid out as
// Monaco lays out EDITOR_OPTIONS (13 px monospace on 18 px lines, the line numbers right-aligned
// in the first 39 px, the text from 65 px, the minimap's and scrollbar's 91 px on the right) and
// scrolled where the tab's remembered view has it, so that Monaco, made underneath, replaces it
// without a move (editor-area.tsx). Only the colours of the syntax arrive with Monaco.
//
// A click into the text and the keys after it go into the file through a textarea laid over the
// lines (early-typing.ts), and Monaco takes over where they left it; no key is replayed into
// Monaco, whose key bindings, IME and selection a replay would have to redo. A tab restored after
// a reload takes the keyboard as its text shows, at the remembered cursor, unless the person gave
// it to something else meanwhile (restored-focus.ts). For a viewer, a dependency, and text the
// textarea does not take, it takes no input: no caret, no focus, a busy pointer.

/** Longer text is left to Monaco (a live document's limit, as fs.preview's): splitting it would cost more than the wait. */
export const PLACEHOLDER_MAX_CHARS = PREVIEW_MAX_BYTES;

/** The editor's font, Monaco's (monaco-pane.tsx) and this view's. */
export const EDITOR_FONT = {
  fontSize: 13,
  fontFamily: 'ui-monospace, "SFMono-Regular", "Cascadia Code", Menlo, Consolas, "DejaVu Sans Mono", monospace',
};

/** Monaco's line height for EDITOR_FONT on Linux and Windows (1.35 times the font size, rounded). */
const LINE_HEIGHT = 18;

// The remembered view states are read with valibot, as everything the first screen reads: zod's
// code and the building of its schemas held a reload's main thread ~40 ms before the text showed.
const positive = v.pipe(v.number(), v.integer(), v.minValue(1));

/** The part of Monaco's view state (ICodeEditorViewState) that says where it is scrolled. */
const scrolledSchema = v.object({
  viewState: v.object({
    scrollLeft: v.optional(v.number()),
    firstPosition: v.object({ lineNumber: positive }),
    firstPositionDeltaTop: v.optional(v.number()),
  }),
});

/** The part of Monaco's view state that says where its cursor is. */
const cursorSchema = v.object({
  cursorState: v.pipe(
    v.array(v.object({ position: v.object({ lineNumber: positive, column: positive }) })),
    v.minLength(1),
  ),
});

/** Where a remembered view's cursor is, as an offset into `text` (clamped to its line and to the text); 0 when it says nothing readable. */
export function cursorOf(view: unknown, text: string): number {
  const parsed = v.safeParse(cursorSchema, view);
  if (!parsed.success) return 0;
  const { lineNumber, column } = parsed.output.cursorState[0]!.position;
  let start = 0;
  for (let line = 1; line < lineNumber; line++) {
    const end = text.indexOf("\n", start);
    if (end < 0) return text.length;
    start = end + 1;
  }
  const end = text.indexOf("\n", start);
  return Math.min(start + column - 1, end < 0 ? text.length : end);
}

/** Where a remembered view is scrolled to, in pixels from the top and left; the top when it says nothing readable. */
export function scrollOf(view: unknown): { top: number; left: number } {
  const parsed = v.safeParse(scrolledSchema, view);
  if (!parsed.success) return { top: 0, left: 0 };
  const { firstPosition, firstPositionDeltaTop = 0, scrollLeft = 0 } = parsed.output.viewState;
  return { top: Math.max(0, (firstPosition.lineNumber - 1) * LINE_HEIGHT - firstPositionDeltaTop), left: scrollLeft };
}

/** The lines drawn for a viewport `height` px tall scrolled to `top` (clamped as Monaco clamps it, no scrolling past the end). */
export function visibleLines(text: string, top: number, height: number) {
  const lines = text.split(/\r\n|\r|\n/);
  const scrollTop = Math.max(0, Math.min(top, lines.length * LINE_HEIGHT - height));
  const first = Math.floor(scrollTop / LINE_HEIGHT);
  const count = Math.ceil(height / LINE_HEIGHT) + 1;
  return { first, offset: first * LINE_HEIGHT - scrollTop, lines: lines.slice(first, first + count) };
}

/**
 * What a placeholder's text is typed into before the editor is in (early-typing.ts): the live
 * document once it is in (until then, what is typed waits for it), or the editor's model.
 */
export type EarlyTyping = {
  path: string;
  connection: LiveDocConnection | undefined;
  readOnly: boolean;
  /**
   * The tab was restored after a reload: the text takes the keyboard as it shows, at the
   * remembered cursor, unless the person gave it to something else meanwhile (restored-focus.ts).
   */
  restored: boolean;
};

export function TextPlaceholder({ text, view, typing }: { text: string; view: unknown; typing?: EarlyTyping }) {
  const host = useRef<HTMLDivElement>(null);
  const area = useRef<HTMLTextAreaElement>(null);
  const [height, setHeight] = useState<number | null>(null);
  const [typed, setTyped] = useState<string | null>(null);
  const [scroll, setScroll] = useState(() => scrollOf(view));
  useLayoutEffect(() => {
    // Fractional, as Monaco measures its own (ResizeObserver's content box): it clamps its scroll with it.
    const element = host.current!;
    setHeight(element.getBoundingClientRect().height);
    const observer = new ResizeObserver(([entry]) => setHeight(entry!.contentRect.height));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  // Decided once: a textarea gone mid-typing (the text grown past the limit) would take the keyboard with it.
  const [typable] = useState(() => typing !== undefined && earlyTypable(text));
  const into = typable ? typing : undefined;
  const binding = useRef<ReturnType<typeof bindEarlyTyping> | null>(null);
  useLayoutEffect(() => {
    if (!into) return;
    const textarea = area.current!;
    const bound = bindEarlyTyping(textarea, text, LINE_HEIGHT, setTyped);
    binding.current = bound;
    textarea.scrollTop = scroll.top;
    textarea.scrollLeft = scroll.left;
    if (into.restored && keyboardFree(textarea.closest(".editor-stack"))) {
      const at = cursorOf(view, text);
      textarea.setSelectionRange(at, at);
      textarea.focus({ preventScroll: true });
    }
    const withdraw = offerHandover(into.path, () => bound.handover());
    return () => {
      withdraw();
      bound.dispose();
      binding.current = null;
    };
    // Bound once, to the text first shown and where it was scrolled: after that the textarea's
    // own text and scroll are followed (a placeholder is keyed by its file's path).
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [into?.path]);
  const connection = into?.connection;
  useLayoutEffect(() => {
    if (connection) binding.current?.connect(connection);
  }, [connection]);
  const lines = typed ?? text;
  const shown = height === null ? null : visibleLines(lines, scroll.top, height);
  return (
    <div
      ref={host}
      className={into ? "text-placeholder text-placeholder-typable" : "text-placeholder"}
      data-testid="editor-placeholder"
      aria-busy="true"
      style={{ ...EDITOR_FONT, lineHeight: `${LINE_HEIGHT}px` }}
    >
      {shown && (
        <div className="text-placeholder-rows" style={{ transform: `translateY(${shown.offset}px)` }}>
          {shown.lines.map((line, i) => (
            <div className="text-placeholder-row" key={shown.first + i}>
              <span className="text-placeholder-number">{shown.first + i + 1}</span>
              <span className="text-placeholder-line" style={scroll.left ? { textIndent: -scroll.left } : undefined}>
                {line}
              </span>
            </div>
          ))}
        </div>
      )}
      {into && (
        <textarea
          ref={area}
          className="text-placeholder-input"
          data-testid="editor-early-input"
          aria-label={`${into.path} (the editor is loading)`}
          wrap="off"
          spellCheck={false}
          autoCapitalize="off"
          autoComplete="off"
          autoCorrect="off"
          readOnly={into.readOnly}
          onScroll={(event) => setScroll({ top: event.currentTarget.scrollTop, left: event.currentTarget.scrollLeft })}
        />
      )}
    </div>
  );
}

/**
 * The editor's font, drawn out of sight where the editor will be: in the empty editor area once it
 * is on screen, and at once (`now`) while a file's text is on its way. The first screen uses no
 * 13 px monospace, and the browser answers for a font size (and weight, and slant) it has not laid
 * out yet by synchronous calls to its font service, one per family of the list it does not have:
 * on a cold load they came as the first file's text was drawn (6-135 ms, more the busier the
 * machine), and again for the bold and italic Monaco measures as it makes the editor. Here they
 * come while the person looks for the file, or while its text is fetched, with nothing waiting.
 */
export function EditorFontWarmUp({ now = false }: { now?: boolean }) {
  const [shown, setShown] = useState(now);
  useEffect(() => (now ? undefined : afterPaint(() => setShown(true))), [now]);
  if (!shown) return null;
  return (
    <div className="editor-font-warm-up" aria-hidden="true" style={{ ...EDITOR_FONT, lineHeight: `${LINE_HEIGHT}px` }}>
      1 <b>1</b> <i>1</i>
    </div>
  );
}
