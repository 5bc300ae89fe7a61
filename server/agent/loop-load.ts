import { performance, type EventLoopUtilization } from "node:perf_hooks";

// How busy the server's event loops are: the share of the last window each spent running callbacks
// rather than waiting for I/O (Node's event-loop utilization), the busiest of them. The loops are
// the server's thread and, when it runs, the model thread (model-thread/): either one saturated
// makes streamed tokens late. Measured only while someone asks: the sampler starts with the first
// question and stops `keepMs` after the last, so an idle server keeps no timer for it.
// Node's CPU profiler (`--cpu-prof`, bench:stream's BENCH_CPU_PROF) keeps every loop awake, so
// utilization reads about 0.9 on an idle server while it records: then nothing is measured.

/** A loop's utilization so far (Node's cumulative figures); null while that loop does not run. */
export type LoopClock = () => EventLoopUtilization | null;

export const thisThread: LoopClock = () => performance.eventLoopUtilization();

export type LoopLoad = {
  /** The busiest loop's utilization (0-1) over the last window; null until one window has been measured. */
  utilization(): number | null;
  stop(): void;
};

const profiling = process.execArgv.some((arg) => arg.startsWith("--cpu-prof"));

export function createLoopLoad(options: { loops?: LoopClock[]; windowMs?: number; keepMs?: number } = {}): LoopLoad {
  const loops = options.loops ?? [thisThread];
  if (profiling) return { utilization: () => null, stop() {} };
  const windowMs = options.windowMs ?? 100;
  const keepMs = options.keepMs ?? 10_000;
  let timer: NodeJS.Timeout | null = null;
  let marks: Array<EventLoopUtilization | null> = [];
  let value: number | null = null;
  let askedAt = 0;

  function stop() {
    if (timer) clearInterval(timer);
    timer = null;
    value = null;
  }

  function sample() {
    const now = loops.map((clock) => clock());
    let busiest = 0;
    now.forEach((current, i) => {
      const mark = marks[i];
      // A loop that started, stopped or started again (the model thread) is measured from its next window.
      if (!current || !mark || current.idle + current.active < mark.idle + mark.active) return;
      busiest = Math.max(busiest, performance.eventLoopUtilization(current, mark).utilization);
    });
    marks = now;
    value = busiest;
    if (Date.now() - askedAt > keepMs) stop();
  }

  return {
    utilization() {
      askedAt = Date.now();
      if (!timer) {
        marks = loops.map((clock) => clock());
        timer = setInterval(sample, windowMs).unref();
      }
      return value;
    },
    stop,
  };
}
