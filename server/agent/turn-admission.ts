import pLimit from "p-limit";

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

export type Admission = <T>(start: () => Promise<T>) => Promise<T>;

export function createAdmission(options: { concurrency: number; holdMs: number }): Admission {
  const limit = pLimit(options.concurrency);
  return (start) =>
    new Promise((resolve, reject) => {
      void limit(() => {
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
