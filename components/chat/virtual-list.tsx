"use client";

import { useVirtualizer } from "@tanstack/react-virtual";
import { createContext, useCallback, useImperativeHandle, useLayoutEffect, useRef, useState, type ReactNode, type Ref } from "react";

// Windowed rendering for long transcripts: only the items near the viewport are in the DOM, so a
// session with 10,000 events opens as fast as one with ten. Items have variable heights, measured
// as they render; the list sticks to the bottom while it is scrolled there, as a chat should.
// Scrolled up, new content below shows a "Jump to latest" control instead of moving the view.

export type VirtualListHandle = {
  /** Scrolls to the last item and follows new content again (after sending, after a restore). */
  jumpToLatest: () => void;
};

/** Lets an item deep in the list bring the latest one into view (a restore's confirmation). */
export const JumpToLatest = createContext<() => void>(() => {});

type VirtualListProps<T> = {
  items: readonly T[];
  keyOf: (item: T, index: number) => string;
  render: (item: T, index: number) => ReactNode;
  estimate?: number;
  className?: string;
  testId?: string;
  label?: string;
  /** Changes whenever content arrives, a new item or more text in one (the log's version). */
  contentKey?: unknown;
  ref?: Ref<VirtualListHandle>;
};

const BOTTOM_SLACK = 48;

export function VirtualList<T>({ items, keyOf, render, estimate = 44, className, testId, label, contentKey, ref }: VirtualListProps<T>) {
  const scroller = useRef<HTMLDivElement>(null);
  const atBottom = useRef(true);
  const [unseen, setUnseen] = useState(false);
  const virtualizer = useVirtualizer({
    count: items.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => estimate,
    getItemKey: (index) => keyOf(items[index]!, index),
    overscan: 6,
  });
  const total = virtualizer.getTotalSize();
  const seen = useRef({ count: items.length, contentKey });

  // Follow new content (and items that grow, like streaming text) while scrolled to the bottom.
  // Scrolled up, content arriving shows the jump control; heights changing as items are measured
  // while scrolling do not.
  useLayoutEffect(() => {
    const el = scroller.current;
    const arrived = items.length > seen.current.count || contentKey !== seen.current.contentKey;
    seen.current = { count: items.length, contentKey };
    if (el && atBottom.current) el.scrollTop = el.scrollHeight;
    else if (arrived) setUnseen(true);
  }, [total, items.length, contentKey]);

  const jumpToLatest = useCallback(() => {
    atBottom.current = true;
    setUnseen(false);
    const el = scroller.current;
    if (!el || items.length === 0) return;
    virtualizer.scrollToIndex(items.length - 1, { align: "end" });
    // The last items' heights may be estimates until they render: settle on the real bottom.
    requestAnimationFrame(() => {
      if (atBottom.current) el.scrollTop = el.scrollHeight;
    });
  }, [virtualizer, items.length]);
  useImperativeHandle(ref, () => ({ jumpToLatest }), [jumpToLatest]);

  return (
    <div className="vlist-frame">
      <div
        ref={scroller}
        className={className}
        onScroll={(e) => {
          const el = e.currentTarget;
          atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < BOTTOM_SLACK;
          if (atBottom.current) setUnseen(false);
        }}
        onKeyDown={(e) => {
          // Home and End go to the first and last item, whose heights may not be measured yet.
          if (e.target !== e.currentTarget || (e.key !== "Home" && e.key !== "End")) return;
          e.preventDefault();
          if (e.key === "End") return jumpToLatest();
          atBottom.current = false;
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
      {unseen && (
        <button type="button" className="btn btn-sm jump-to-latest" onClick={jumpToLatest} data-testid="jump-to-latest">
          ↓ Jump to latest
        </button>
      )}
    </div>
  );
}
