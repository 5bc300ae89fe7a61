import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { coalesce } from "./coalesce";

describe("coalesce", () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it("runs at once on a call after a quiet spell: a save or a click waits for nothing", () => {
    const run = vi.fn();
    const refresh = coalesce(run, 300);
    refresh.call();
    expect(run).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(301);
    expect(run).toHaveBeenCalledTimes(1);
    refresh.call();
    expect(run).toHaveBeenCalledTimes(2);
  });

  it("turns the calls of a burst into one run at the end of each window", () => {
    const run = vi.fn();
    const refresh = coalesce(run, 300);
    for (let i = 0; i < 50; i++) refresh.call();
    expect(run).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(299);
    expect(run).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(1);
    expect(run).toHaveBeenCalledTimes(2);
    // A burst that goes on runs once per window, and the last call is never lost.
    for (let t = 0; t < 1000; t += 50) {
      refresh.call();
      vi.advanceTimersByTime(50);
    }
    expect(run.mock.calls.length).toBeLessThanOrEqual(2 + 4);
    const before = run.mock.calls.length;
    vi.advanceTimersByTime(300);
    expect(run).toHaveBeenCalledTimes(before + 1);
    vi.advanceTimersByTime(1000);
    expect(run).toHaveBeenCalledTimes(before + 1);
  });

  it("runs nothing more once cancelled", () => {
    const run = vi.fn();
    const refresh = coalesce(run, 300);
    refresh.call();
    refresh.call();
    refresh.cancel();
    vi.advanceTimersByTime(1000);
    expect(run).toHaveBeenCalledTimes(1);
  });
});
