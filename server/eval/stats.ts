// The numbers a team chooses a model by. Runs of one task are not independent (an easy task is
// easy every time), so intervals are taken over tasks: pass@1 is the mean over tasks of each
// task's pass rate, with a normal 95% interval from the spread of those rates; pass^k is the
// chance that k runs of a task all pass (as τ-bench defines it), estimated without bias from n
// runs with c passes as C(c,k)/C(n,k). A comparison pairs the two configurations task by task.

export type TaskRate = { task: string; runs: number; passes: number };

const Z95 = 1.96;

function meanAndHalfWidth(values: number[]): { mean: number; halfWidth: number } {
  const n = values.length;
  if (!n) return { mean: 0, halfWidth: 0 };
  const mean = values.reduce((s, v) => s + v, 0) / n;
  if (n < 2) return { mean, halfWidth: Number.NaN };
  const variance = values.reduce((s, v) => s + (v - mean) ** 2, 0) / (n - 1);
  return { mean, halfWidth: Z95 * Math.sqrt(variance / n) };
}

export type Interval = { value: number; low: number; high: number };

export function passAt1(rates: TaskRate[]): Interval {
  const { mean, halfWidth } = meanAndHalfWidth(rates.map((r) => r.passes / Math.max(1, r.runs)));
  return { value: mean, low: Math.max(0, mean - halfWidth), high: Math.min(1, mean + halfWidth) };
}

function choose(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  let result = 1;
  for (let i = 1; i <= k; i++) result = (result * (n - k + i)) / i;
  return result;
}

/** Over the tasks with at least k runs; null when none has. */
export function passHatK(rates: TaskRate[], k: number): number | null {
  const eligible = rates.filter((r) => r.runs >= k);
  if (!eligible.length) return null;
  return eligible.reduce((s, r) => s + choose(r.passes, k) / choose(r.runs, k), 0) / eligible.length;
}

export type PairedComparison = {
  tasks: number;
  /** B's pass@1 minus A's, over the tasks both ran, with its 95% interval. */
  difference: Interval;
  better: string[];
  worse: string[];
};

export function comparePaired(a: TaskRate[], b: TaskRate[]): PairedComparison {
  const paired = a.flatMap((x) => {
    const y = b.find((r) => r.task === x.task);
    return y ? [{ task: x.task, d: y.passes / Math.max(1, y.runs) - x.passes / Math.max(1, x.runs) }] : [];
  });
  const { mean, halfWidth } = meanAndHalfWidth(paired.map((p) => p.d));
  return {
    tasks: paired.length,
    difference: { value: mean, low: mean - halfWidth, high: mean + halfWidth },
    better: paired.filter((p) => p.d > 0).map((p) => p.task),
    worse: paired.filter((p) => p.d < 0).map((p) => p.task),
  };
}
