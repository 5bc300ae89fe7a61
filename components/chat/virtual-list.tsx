"use client";

import { useVirtualizer } from "@tanstack/react-virtual";
import { useLayoutEffect, useRef, type ReactNode } from "react";

// Windowed rendering for long transcripts: only the items near the viewport are in the DOM, so a
// session with 10,000 events opens as fast as one with ten. Items have variable heights, measured
// as they render; the list sticks to the bottom while it is scrolled there, as a chat should.

type VirtualListProps<T> = {
  items: readonly T[];
  keyOf: (item: T, index: number) => string;
  render: (item: T, index: number) => ReactNode;
  estimate?: number;
  className?: string;
  testId?: string;
  label?: string;
};

const BOTTOM_SLACK = 48;

export function VirtualList<T>({ items, keyOf, render, estimate = 44, className, testId, label }: VirtualListProps<T>) {
  const scroller = useRef<HTMLDivElement>(null);
  const atBottom = useRef(true);
  const virtualizer = useVirtualizer({
    count: items.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => estimate,
    getItemKey: (index) => keyOf(items[index]!, index),
    overscan: 6,
  });
  const total = virtualizer.getTotalSize();

  // Follow new content (and items that grow, like streaming text) while scrolled to the bottom.
  useLayoutEffect(() => {
    const el = scroller.current;
    if (el && atBottom.current) el.scrollTop = el.scrollHeight;
  }, [total, items.length]);

  return (
    <div
      ref={scroller}
      className={className}
      onScroll={(e) => {
        const el = e.currentTarget;
        atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < BOTTOM_SLACK;
      }}
      onKeyDown={(e) => {
        // Home and End go to the first and last item, whose heights may not be measured yet.
        if (e.target !== e.currentTarget || (e.key !== "Home" && e.key !== "End")) return;
        e.preventDefault();
        atBottom.current = e.key === "End";
        virtualizer.scrollToIndex(e.key === "Home" ? 0 : items.length - 1, { align: e.key === "Home" ? "start" : "end" });
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
  );
}
