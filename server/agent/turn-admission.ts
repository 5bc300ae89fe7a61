import pLimit from "p-limit";
import type { LoopLoad } from "@/server/agent/loop-load";

// Turn starts, a few at a time.
//
// A turn's start (its lease, the session's project and settings, its tools, the workspace's
// context, git's summary, the system prompt) is 25-50 ms of the server thread's time and two
// dozen round trips to the database. When many start at once (a workflow or a schedule that fans
// out, the turns recovered after a restart, many people pressing send together), every start took
// its share of the thread at the same time, and every session already streaming waited behind all
// of them: that burst was where bench:stream's added p99 came from. Let in a few at a time, the
// starts asked first finish first, and a streaming session's token waits behind a few starts only.
//
// It is a choice of who waits, not less work. bench:stream on this 2-core machine (November 2026,
// interleaved runs): 200 sessions sent at once, added p50 / p99 166-285 / 255-863 ms with no
// limit, 12-49 / 55-163 ms with 8 at a time; but the last of them see their first text later,
// p99 7.4-10.2 s against 4.2-5.0 s (p50 3.6-6.8 s against 3.5-4.5 s). The first burst of 50 after
// start: 24-27 / 141-258 ms with no limit, 17-19 / 87-118 ms with 8, first text alike. A server
// that has run a while, 50 at once: alike either way.
//
// Eight at a time was not enough once starts got cheaper (Node 24, SQL straight to the pool): 200
// sessions started faster than they could stream, and at 200 the added p99 rose to 152-396 ms.
// So a start also waits while the server is saturated: while the busier of the server's thread and
// the model thread spent more than 85% of the last 100 ms running (loop-load.ts), up to 10 s, then
// it goes in anyway. A turn not yet started waits instead of every session streaming. bench:stream,
// added p50 / p99: 200 sessions -1-0 / 21-28 ms with the wait, 55-83 / 152-396 ms without, the last
// first text (p99) 6.7-9.8 s against 3.0-3.5 s; 50 sessions 2.6-8.9 / 21-77 ms over a dozen rounds
// (this machine's noise) against 2.7-5.4 / 30-38 ms in three without; there the late tokens are the
// ones sent while the 50 turns start.
//
// A start also waits on things that cost the thread nothing: an MCP server starting, git in the
// sandbox, a slow database. So a start holds its place until it settles or `holdMs` has passed,
// whichever is first; after that the next is let in beside it. A start that waits long delays
// the ones behind it by at most `holdMs`.

/**
 * How many turns may be starting at once. bench:stream, 200 sessions sent at once on a warm
 * server: 8 kept the added p99 within its 200 ms target (55-163 ms) with the least delay to the
 * last sessions' first text; 5 gave a p99 of 32 ms but 9.0 s to the last first text, 3 gave 11.3 s.
 */
export const TURN_STARTS_AT_ONCE = 8;
/** How long a start that waits on something slow holds its place. */
export const TURN_START_HOLD_MS = 500;
/** While the busier of the server's loops is this busy, a start waits for room (up to maxWaitMs), looking every pollMs. */
export const TURN_START_GATE = { busyAbove: 0.85, maxWaitMs: 10_000, pollMs: 50 };

export type Admission = <T>(start: () => Promise<T>) => Promise<T>;

/** While the server's loops are busier than `busyAbove` (0-1), a start waits, up to `maxWaitMs`. */
export type LoadGate = { load: LoopLoad; busyAbove: number; maxWaitMs: number; pollMs: number };

export function createAdmission(options: { concurrency: number; holdMs: number; gate?: LoadGate }): Admission {
  const limit = pLimit(options.concurrency);
  const { gate } = options;

  /** Until the loops have room (or the start has waited long enough): a start in a saturated loop slows every session streaming. */
  async function room() {
    if (!gate) return;
    const until = Date.now() + gate.maxWaitMs;
    while ((gate.load.utilization() ?? 0) > gate.busyAbove && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, gate.pollMs));
    }
  }

  return (start) =>
    new Promise((resolve, reject) => {
      void limit(async () => {
        await room();
        const started = Promise.resolve().then(start); // a start that throws at once rejects like one that fails later
        started.then(resolve, reject);
        return new Promise<void>((free) => {
          const timer = setTimeout(free, options.holdMs).unref();
          const settled = () => {
            clearTimeout(timer);
            free();
          };
          started.then(settled, settled);
        });
      });
    });
}
