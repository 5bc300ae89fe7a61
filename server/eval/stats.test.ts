import { describe, expect, it } from "vitest";
import { comparePaired, passAt1, passHatK } from "./stats";

describe("eval statistics", () => {
  it("pass@1 is the mean of the tasks' rates, with an interval from their spread", () => {
    const rates = [
      { task: "a", runs: 3, passes: 3 },
      { task: "b", runs: 3, passes: 0 },
      { task: "c", runs: 3, passes: 3 },
      { task: "d", runs: 3, passes: 0 },
    ];
    const p = passAt1(rates);
    expect(p.value).toBe(0.5);
    // sd of [1,0,1,0] is 0.577; 1.96 * 0.577 / 2 = 0.566, clipped to [0, 1].
    expect(p.low).toBe(0);
    expect(p.high).toBe(1);
    expect(passAt1(rates.map((r) => ({ ...r, passes: 2 })))).toEqual({ value: 2 / 3, low: 2 / 3, high: 2 / 3 });
  });

  it("pass^k is the chance that k runs all pass, estimated from n runs", () => {
    // 2 of 3 passing: C(2,3)/C(3,3) = 0; 3 of 3: 1; 3 of 4: C(3,3)/C(4,3) = 1/4.
    expect(
      passHatK(
        [
          { task: "a", runs: 3, passes: 2 },
          { task: "b", runs: 3, passes: 3 },
          { task: "c", runs: 4, passes: 3 },
        ],
        3,
      ),
    ).toBeCloseTo((0 + 1 + 0.25) / 3);
    expect(passHatK([{ task: "a", runs: 1, passes: 1 }], 3)).toBeNull();
  });

  it("a paired comparison differs task by task and says which way", () => {
    const a = ["a", "b", "c", "d"].map((task) => ({ task, runs: 3, passes: 1 }));
    const b = ["a", "b", "c", "d", "e"].map((task) => ({ task, runs: 3, passes: 3 }));
    const paired = comparePaired(a, b);
    expect(paired.tasks).toBe(4);
    expect(paired.difference.value).toBeCloseTo(2 / 3);
    expect(paired.difference.low).toBeCloseTo(2 / 3);
    expect(paired.better).toEqual(["a", "b", "c", "d"]);
    expect(paired.worse).toEqual([]);
  });
});
