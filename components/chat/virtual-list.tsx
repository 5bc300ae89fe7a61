"use client";

import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type ReactNode } from "react";

// Windowed rendering for long transcripts: only the items near the viewport are in the DOM, so a
// session with 10,000 events opens as fast as one with ten. Written by hand because the project
// has no virtualizer dependency yet (@tanstack/react-virtual is the intended replacement): items
// have variable heights, measured with one ResizeObserver and estimated until seen; the list
// sticks to the bottom while it is scrolled there, as a chat should.

type VirtualListProps<T> = {
  items: readonly T[];
  keyOf: (item: T, index: number) => string;
  render: (item: T, index: number) => ReactNode;
  estimate?: number;
  overscanPx?: number;
  className?: string;
  testId?: string;
  label?: string;
};

const BOTTOM_SLACK = 48;

export function VirtualList<T>({ items, keyOf, render, estimate = 80, overscanPx = 800, className, testId, label }: VirtualListProps<T>) {
  const scroller = useRef<HTMLDivElement>(null);
  const heights = useRef(new Map<string, number>());
  const atBottom = useRef(true);
  const [viewport, setViewport] = useState({ top: 0, height: 800 });
  const [measured, setMeasured] = useState(0);

  const keys = useMemo(() => items.map((item, i) => keyOf(item, i)), [items, keyOf]);
  // Offsets are prefix sums of known or estimated heights; O(n) per render is fine at 10k items.
  const offsets = useMemo(() => {
    const out = new Float64Array(keys.length + 1);
    for (let i = 0; i < keys.length; i++) out[i + 1] = out[i]! + (heights.current.get(keys[i]!) ?? estimate);
    return out;
    // `measured` changes when a height does.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [keys, estimate, measured]);
  const total = offsets[keys.length]!;

  const first = Math.max(0, upperBound(offsets, viewport.top - overscanPx) - 1);
  const last = Math.min(keys.length, upperBound(offsets, viewport.top + viewport.height + overscanPx));

  const observer = useMemo(() => {
    if (typeof ResizeObserver === "undefined") return null;
    let pending = false;
    return new ResizeObserver((entries) => {
      for (const entry of entries) {
        const key = (entry.target as HTMLElement).dataset.vkey;
        const height = (entry.target as HTMLElement).offsetHeight;
        if (key && heights.current.get(key) !== height) {
          heights.current.set(key, height);
          pending = true;
        }
      }
      if (pending) {
        pending = false;
        setMeasured((m) => m + 1);
      }
    });
  }, []);
  useEffect(() => () => observer?.disconnect(), [observer]);

  const itemRef = useCallback(
    (element: HTMLDivElement | null) => {
      if (!element || !observer) return;
      observer.observe(element);
      return () => observer.unobserve(element);
    },
    [observer],
  );

  const onScroll = () => {
    const el = scroller.current;
    if (!el) return;
    atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < BOTTOM_SLACK;
    setViewport({ top: el.scrollTop, height: el.clientHeight });
  };

  // Follow new content while scrolled to the bottom.
  useLayoutEffect(() => {
    const el = scroller.current;
    if (el && atBottom.current) el.scrollTop = el.scrollHeight;
  }, [total, keys.length]);

  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const resize = new ResizeObserver(() => {
      if (atBottom.current) el.scrollTop = el.scrollHeight;
      setViewport({ top: el.scrollTop, height: el.clientHeight });
    });
    resize.observe(el);
    return () => resize.disconnect();
  }, []);

  return (
    <div ref={scroller} className={className} onScroll={onScroll} data-testid={testId} tabIndex={0} role="log" aria-label={label} aria-live="polite">
      <div style={{ height: offsets[first] }} aria-hidden />
      {keys.slice(first, last).map((key, i) => (
        <div key={key} ref={itemRef} data-vkey={key} className="vlist-item">
          {render(items[first + i]!, first + i)}
        </div>
      ))}
      <div style={{ height: total - offsets[last]! }} aria-hidden />
    </div>
  );
}

/** The first index whose offset is greater than `value`. */
function upperBound(offsets: Float64Array, value: number): number {
  let lo = 0;
  let hi = offsets.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (offsets[mid]! <= value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
