import pLimit from "p-limit";
import type { LoopLoad } from "@/server/agent/loop-load";

// Turn starts, a few at a time, and not while the server is saturated.
//
// A turn's start (its lease, the session's project and settings, its tools, the workspace's
// context, git's summary, the system prompt) costs the server thread tens of milliseconds and two
// dozen database round trips. When many start at once (a workflow or schedule that fans out, the
// turns recovered after a restart, many people pressing send together), every session already
// streaming waits behind all of them. So starts go in a few at a time, first asked first in, and
// also wait (up to a bound) while the server's or the model thread's loop is nearly always busy
// (loop-load.ts): a turn not yet started waits instead of every session streaming. It is a choice
// of who waits, not less work: the last of a burst see their first text later. bench:stream
// measures both sides (docs/testing.md says how to read it).
//
// A start also waits on things that cost the thread nothing (an MCP server starting, git in the
// sandbox, a slow database), so it holds its place only until it settles or `holdMs` has passed;
// a start that waits long delays the ones behind it by at most `holdMs`.

/**
 * How many turns may be starting at once: few enough that sessions already streaming keep their
 * pace through a burst, enough that the burst's last turns do not wait seconds for their first
 * text (bench:stream measures both).
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
