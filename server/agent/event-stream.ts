import type { AgentStore } from "@/server/agent/agent-store";
import type { SessionBus } from "@/server/bus/session-bus";
import type { EventLog } from "@/server/agent/events";
import type { LiveItem, SessionStreamItem } from "@/lib/session-events";

// A subscriber's view of a session: every committed event after `afterSeq` exactly once and in
// order (what it missed in page-sized batches), then live events, with provisional text deltas
// interleaved (see events.ts).
//
// The bus listener is registered BEFORE the backlog is read, so nothing published in between is
// lost; anything it delivers that the backlog already covered is dropped by seq. If the bus ever
// skips a seq (a publish from another instance that arrives late), the gap is filled from the log.

const PAGE = 1000;

export async function* streamSessionEvents(input: {
  store: AgentStore;
  bus: SessionBus;
  log: EventLog;
  sessionId: string;
  afterSeq: number;
  signal?: AbortSignal;
}): AsyncGenerator<SessionStreamItem> {
  const { store, bus, log, sessionId, signal } = input;
  const queue: LiveItem[] = [];
  let wake: (() => void) | null = null;
  const unsubscribe = bus.subscribe(sessionId, (item) => {
    queue.push(item);
    wake?.();
  });
  const onAbort = () => wake?.();
  signal?.addEventListener("abort", onAbort);
  let last = input.afterSeq;

  const readPage = (after: number) => {
    const page = store.events.list(sessionId, after, PAGE);
    page.catch(() => {}); // awaited below, unless the subscriber left first
    return page;
  };

  /**
   * The log after `last` up to `upTo`, a page per item. The next page is read while the current
   * one is being sent, so the database and the socket work at the same time.
   */
  async function* readLog(upTo = Infinity): AsyncGenerator<SessionStreamItem> {
    let next = readPage(last);
    let promised = false; // the last batch said `more`: the viewer waits for one with `more: false`
    for (;;) {
      const page = await next;
      const events = page.filter((event) => event.seq <= upTo);
      const more = page.length === PAGE && events.length === page.length;
      if (more) next = readPage(page.at(-1)!.seq);
      if (events.length || promised) {
        if (events.length) last = events.at(-1)!.seq;
        yield { kind: "events", events, more };
        promised = more;
      }
      if (!more) return;
    }
  }

  try {
    yield* readLog();
    const pending = log.pending(sessionId);
    if (pending && pending.seq > last) yield { kind: "delta", ...pending };
    while (!signal?.aborted) {
      if (!queue.length) {
        await new Promise<void>((resolve) => (wake = resolve));
        wake = null;
        continue;
      }
      const item = queue.shift()!;
      if (item.kind === "progress") {
        yield item;
        continue;
      }
      if (item.kind === "delta") {
        if (item.seq > last) yield mergeQueuedDeltas(item, queue);
        continue;
      }
      if (item.event.seq <= last) continue;
      if (item.event.seq > last + 1) yield* readLog(item.event.seq - 1);
      last = item.event.seq;
      yield item;
    }
  } finally {
    unsubscribe();
    signal?.removeEventListener("abort", onAbort);
  }
}

/**
 * The delta with the text of the deltas queued right behind it that continue it (same seq, next
 * offset), taken off the queue. A viewer that fell behind (a busy server, a slow socket) then gets
 * one message with the tokens it missed instead of one each, so it catches up instead of falling
 * further behind; a viewer that keeps up has nothing queued and gets each token as it comes.
 */
function mergeQueuedDeltas(first: Extract<LiveItem, { kind: "delta" }>, queue: LiveItem[]): LiveItem {
  let text = first.text;
  let taken = 0;
  for (const next of queue) {
    if (next.kind !== "delta" || next.seq !== first.seq || next.offset !== first.offset + text.length) break;
    text += next.text;
    taken++;
  }
  if (!taken) return first;
  queue.splice(0, taken);
  return { ...first, text };
}

/**
 * Wraps a stream so that `return()` ends it at once: a generator parked waiting for the next
 * event could otherwise only be returned from when one arrives. Ending it aborts the signal the
 * stream was made with, which wakes and stops it.
 */
export function endableStream<T, U>(
  make: (signal: AbortSignal) => AsyncGenerator<T>,
  map: (item: T) => U,
  outer?: AbortSignal,
): AsyncIterableIterator<U> {
  const controller = new AbortController();
  outer?.addEventListener("abort", () => controller.abort(), { once: true });
  if (outer?.aborted) controller.abort();
  const source = make(controller.signal);
  const iterator: AsyncIterableIterator<U> = {
    // Once per event per viewer: a `then` on the source's promise, not an async function around it.
    next() {
      return source
        .next()
        .then(
          (step): IteratorResult<U> =>
            step.done ? { done: true, value: undefined } : { done: false, value: map(step.value) },
        );
    },
    async return() {
      controller.abort();
      return { done: true, value: undefined };
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}
