"use client";

import { useVirtualizer } from "@tanstack/react-virtual";
import {
  createContext,
  useCallback,
  useImperativeHandle,
  useLayoutEffect,
  useRef,
  useState,
  type ReactNode,
  type Ref,
} from "react";

// Windowed rendering for long transcripts: only the items near the viewport are in the DOM, so a
// session with 10,000 events opens as fast as one with ten. Items have variable heights: each
// rendered item is measured, and re-measured whenever it changes size (a card opening, output
// streaming in, an image loading), through the virtualizer's ResizeObserver; the estimate only
// places items never rendered yet. The list is anchored to its end, as a chat is: scrolled to
// the bottom, it stays there as items arrive or grow (the virtualizer moves the view, so its idea
// of the scroll position and the element's never disagree). Scrolled up, new content shows a
// "Jump to latest" bar below the list instead of moving the view.

export type VirtualListHandle = {
  /** Scrolls to the last item and follows new content again (after sending, after a restore). */
  jumpToLatest: () => void;
};

/** Lets an item deep in the list bring the latest one into view (a restore's confirmation). */
export const JumpToLatest = createContext<() => void>(() => {});

type VirtualListProps<T> = {
  items: readonly T[];
  /** A key per item that stays the same as items arrive before or after it: its measured height is kept under it. */
  keyOf: (item: T) => string;
  render: (item: T, index: number) => ReactNode;
  estimate?: number;
  className?: string;
  testId?: string;
  label?: string;
  /** Changes whenever content arrives, a new item or more text in one (the log's version). */
  contentKey?: unknown;
  ref?: Ref<VirtualListHandle>;
};

/** How near the end (px) still counts as at the end: following resumes from there. */
const END_SLACK = 48;

export function VirtualList<T>({
  items,
  keyOf,
  render,
  estimate = 44,
  className,
  testId,
  label,
  contentKey,
  ref,
}: VirtualListProps<T>) {
  const scroller = useRef<HTMLDivElement>(null);
  const [unseen, setUnseen] = useState(false);
  const virtualizer = useVirtualizer({
    count: items.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => estimate,
    getItemKey: (index) => keyOf(items[index]!),
    overscan: 6,
    // The space above the first item and below the last is the virtualizer's, not the element's
    // padding: its idea of where the end is then matches the element's.
    paddingStart: 4,
    paddingEnd: 12,
    anchorTo: "end",
    followOnAppend: true,
    scrollEndThreshold: END_SLACK,
  });
  const atEnd = virtualizer.isAtEnd();
  const total = virtualizer.getTotalSize();

  // Whether the view follows what arrives at the end. It stops only when the view moves up, away
  // from the end (a person scrolling, Home): an item below growing, a card measured at once far
  // past its estimate, or the browser clamping the position while heights settle leave it
  // following. Judged by the distance from the end alone, a card that grew by more than the slack
  // in one measurement (a loaded machine) left the view above the end for good (e2e 06).
  const following = useRef(true);
  const lastTop = useRef(0);
  const onScroll = useCallback(() => {
    const element = scroller.current;
    if (!element) return;
    const top = element.scrollTop;
    if (element.scrollHeight - top - element.clientHeight <= END_SLACK) following.current = true;
    else if (top < lastTop.current - 1) following.current = false;
    lastTop.current = top;
  }, []);

  // Following when an item settles its height, go all the way: the last line is never left under
  // the fold (the virtualizer keeps the distance it was at).
  useLayoutEffect(() => {
    if ((following.current || virtualizer.isAtEnd()) && virtualizer.getDistanceFromEnd() > 1) virtualizer.scrollToEnd();
  }, [total, virtualizer]);

  // Open at the latest item.
  useLayoutEffect(() => {
    virtualizer.scrollToEnd();
  }, [virtualizer]);

  // Content that arrives while the view is away from the end is announced, not scrolled to. It is
  // judged a frame later, once the virtualizer has followed what arrived at the end.
  const seen = useRef(contentKey);
  useLayoutEffect(() => {
    if (seen.current === contentKey) return;
    seen.current = contentKey;
    const frame = requestAnimationFrame(() => {
      if (virtualizer.isAtEnd()) return;
      if (following.current) virtualizer.scrollToEnd();
      else setUnseen(true);
    });
    return () => cancelAnimationFrame(frame);
  }, [contentKey, virtualizer]);
  if (unseen && atEnd) setUnseen(false);

  const jumpToLatest = useCallback(() => {
    setUnseen(false);
    following.current = true;
    virtualizer.scrollToEnd();
  }, [virtualizer]);
  useImperativeHandle(ref, () => ({ jumpToLatest }), [jumpToLatest]);

  return (
    <div className="vlist-frame">
      <div
        ref={scroller}
        className={className}
        onScroll={onScroll}
        onKeyDown={(e) => {
          // Home and End go to the first and last item, whose heights may not be measured yet.
          if (e.target !== e.currentTarget || (e.key !== "Home" && e.key !== "End")) return;
          e.preventDefault();
          if (e.key === "End") return jumpToLatest();
          virtualizer.scrollToIndex(0, { align: "start" });
        }}
        data-testid={testId}
        tabIndex={0}
        role="log"
        aria-label={label}
      >
        <div style={{ height: total, position: "relative" }}>
          {virtualizer.getVirtualItems().map((row) => (
            <div
              key={row.key}
              ref={virtualizer.measureElement}
              data-index={row.index}
              className="vlist-item"
              style={{ position: "absolute", top: 0, left: 0, width: "100%", transform: `translateY(${row.start}px)` }}
            >
              {render(items[row.index]!, row.index)}
            </div>
          ))}
        </div>
      </div>
      {unseen && !atEnd && (
        // Below the list, in its own space: it never covers the output it announces.
        <div className="jump-to-latest-bar">
          <button
            type="button"
            className="btn btn-sm jump-to-latest"
            onClick={jumpToLatest}
            data-testid="jump-to-latest"
          >
            ↓ Jump to latest
          </button>
        </div>
      )}
    </div>
  );
}
