import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { afterPaint } from "./after-paint";

describe("afterPaint", () => {
  let frames: Map<number, FrameRequestCallback>;
  const paint = () => {
    const due = [...frames.values()];
    frames.clear();
    for (const callback of due) callback(0);
  };
  beforeEach(() => {
    vi.useFakeTimers();
    frames = new Map();
    let next = 1;
    vi.stubGlobal("requestAnimationFrame", (callback: FrameRequestCallback) => {
      frames.set(next, callback);
      return next++;
    });
    vi.stubGlobal("cancelAnimationFrame", (id: number) => frames.delete(id));
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it("runs in a task after the next frame, not in the frame itself", () => {
    const run = vi.fn();
    afterPaint(run);
    vi.advanceTimersByTime(100);
    expect(run).not.toHaveBeenCalled();
    paint();
    expect(run).not.toHaveBeenCalled();
    vi.advanceTimersByTime(0);
    expect(run).toHaveBeenCalledTimes(1);
  });

  it("runs nothing once cancelled, before the frame or between the frame and the task", () => {
    const early = vi.fn();
    afterPaint(early)();
    paint();
    vi.advanceTimersByTime(0);
    expect(early).not.toHaveBeenCalled();

    const late = vi.fn();
    const cancel = afterPaint(late);
    paint();
    cancel();
    vi.advanceTimersByTime(0);
    expect(late).not.toHaveBeenCalled();
  });
});
