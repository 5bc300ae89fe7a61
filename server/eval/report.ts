import { z } from "zod";
import type { RunResult } from "@/server/eval/harness";
import { costUsd, type Prices } from "@/server/eval/prices";
import { comparePaired, type Interval, passAt1, passHatK, type TaskRate } from "@/server/eval/stats";

// What an eval run reports: what ran (model, Tandem's commit, prompt and tool hashes, settings,
// the sandbox), every run, per task and overall (pass@1 with its 95% interval, pass^k, the
// held-out part on its own, steps, tokens, cost, wall time, tool errors, loop-guard stops), as
// JSON and as markdown; and the paired comparison of two reports (two models, or before and
// after a prompt change).

export type RunMeta = {
  tandemCommit: string;
  /** Uncommitted changes in the working tree the eval ran from: the commit alone does not say what ran. */
  dirty: boolean;
  /** sha256 of the system prompt's sources (server/agent/prompts) and of the tools' (server/tools). */
  promptHash: string;
  toolsHash: string;
  settings: Record<string, string | number | boolean | null>;
  sandbox: { mode: string; commands: string[] };
  /** Tasks left out because the sandbox lacks what they require. */
  skipped: { task: string; missing: string[] }[];
};

export type Summary = {
  task: string;
  split: string;
  runs: number;
  passes: number;
  successRate: number;
  steps: number;
  inputTokens: number;
  outputTokens: number;
  /** null: the model has no price. */
  costUsd: number | null;
  wallSeconds: number;
  toolErrors: number;
  loopGuardStops: number;
};

export type Overall = Summary & {
  passAt1: Interval;
  /** pass^k for k = runs per task; null with one run. */
  passHatK: number | null;
  heldOut: Interval | null;
  dev: Interval | null;
};

export type EvalReport = {
  model: string;
  startedAt: string;
  runsPerTask: number;
  meta: RunMeta;
  results: RunResult[];
  tasks: Summary[];
  overall: Overall;
};

export function buildReport(
  input: { model: string; startedAt: Date; runsPerTask: number; meta: RunMeta; prices?: Prices | null },
  runs: RunResult[],
): EvalReport {
  const results = runs.map((r) =>
    r.costUsd === null && input.prices ? { ...r, costUsd: costUsd(r, input.prices) } : r,
  );
  const names = [...new Set(results.map((r) => r.task))];
  const tasks = names.map((name) =>
    summarise(
      name,
      results.filter((r) => r.task === name),
    ),
  );
  const rates = (split?: string) =>
    tasks
      .filter((t) => !split || t.split === split)
      .map((t): TaskRate => ({ task: t.task, runs: t.runs, passes: t.passes }));
  const part = (split: string) => (rates(split).length ? passAt1(rates(split)) : null);
  return {
    model: input.model,
    startedAt: input.startedAt.toISOString(),
    runsPerTask: input.runsPerTask,
    meta: input.meta,
    results,
    tasks,
    overall: {
      ...summarise("overall", results),
      passAt1: passAt1(rates()),
      passHatK: input.runsPerTask > 1 ? passHatK(rates(), input.runsPerTask) : null,
      heldOut: part("held-out"),
      dev: part("dev"),
    },
  };
}

/** Means per run, except the error and loop-guard counts, which are totals. */
function summarise(task: string, runs: RunResult[]): Summary {
  const n = Math.max(1, runs.length);
  const mean = (pick: (r: RunResult) => number) => runs.reduce((s, r) => s + pick(r), 0) / n;
  const splits = [...new Set(runs.map((r) => r.split))];
  return {
    task,
    split: splits.length === 1 ? splits[0]! : "all",
    runs: runs.length,
    passes: runs.filter((r) => r.success).length,
    successRate: mean((r) => (r.success ? 1 : 0)),
    steps: mean((r) => r.steps),
    inputTokens: mean((r) => r.inputTokens),
    outputTokens: mean((r) => r.outputTokens),
    costUsd: runs.some((r) => r.costUsd === null) ? null : mean((r) => r.costUsd ?? 0),
    wallSeconds: mean((r) => r.wallMs / 1000),
    toolErrors: runs.reduce((s, r) => s + r.toolErrors, 0),
    loopGuardStops: runs.reduce((s, r) => s + r.loopGuardStops, 0),
  };
}

const pct = (x: number) => `${Math.round(x * 100)}%`;
const num = (x: number, digits = 1) => (Number.isInteger(x) ? String(x) : x.toFixed(digits));
const money = (x: number | null) => (x === null ? "—" : x.toFixed(4));
const interval = (i: Interval) => `${pct(i.value)} (95% CI ${pct(i.low)}–${pct(i.high)})`;

export function markdownReport(report: EvalReport): string {
  const { overall, meta } = report;
  const head =
    "| task | split | passed | steps | input tokens | output tokens | cost (USD) | wall (s) | tool errors | loop-guard stops |\n|---|---|---|---|---|---|---|---|---|---|";
  const row = (s: Summary) =>
    `| ${s.task} | ${s.split} | ${s.passes}/${s.runs} | ${num(s.steps)} | ${Math.round(s.inputTokens)} | ${Math.round(s.outputTokens)} | ${money(s.costUsd)} | ${num(s.wallSeconds)} | ${s.toolErrors} | ${s.loopGuardStops} |`;
  const failures = report.results
    .filter((r) => !r.success)
    .map((r) => `- ${r.task} #${r.run}: ${r.reason} (turn ended: ${r.finish})`);
  return [
    `# Eval: ${report.model}`,
    "",
    `**pass@1 ${interval(overall.passAt1)}** over ${report.tasks.length} tasks × ${report.runsPerTask} run(s)` +
      (overall.passHatK !== null ? `; pass^${report.runsPerTask} ${pct(overall.passHatK)}` : "") +
      (overall.heldOut ? `; held-out ${interval(overall.heldOut)}` : "") +
      (overall.dev ? `; dev ${interval(overall.dev)}` : ""),
    "",
    `Mean per run: ${num(overall.steps)} steps, ${Math.round(overall.inputTokens)} input and ${Math.round(overall.outputTokens)} output tokens, ${money(overall.costUsd)} USD, ${num(overall.wallSeconds)} s.`,
    "",
    `Started ${report.startedAt}. Tandem ${meta.tandemCommit.slice(0, 12)}${meta.dirty ? " (with uncommitted changes)" : ""}, prompt ${meta.promptHash.slice(0, 12)}, tools ${meta.toolsHash.slice(0, 12)}; sandbox ${meta.sandbox.mode} (${meta.sandbox.commands.join(", ") || "no runtimes found"}); ${Object.entries(
      meta.settings,
    )
      .map(([k, v]) => `${k} ${v}`)
      .join(", ")}.`,
    ...(meta.skipped.length
      ? [
          "",
          `Skipped (the sandbox lacks what they need): ${meta.skipped.map((s) => `${s.task} (${s.missing.join(", ")})`).join(", ")}.`,
        ]
      : []),
    "",
    head,
    ...report.tasks.map(row),
    `| **overall** | | **${overall.passes}/${overall.runs}** | ${num(overall.steps)} | ${Math.round(overall.inputTokens)} | ${Math.round(overall.outputTokens)} | ${money(overall.costUsd)} | ${num(overall.wallSeconds)} | ${overall.toolErrors} | ${overall.loopGuardStops} |`,
    ...(failures.length ? ["", "## Failed runs", ...failures] : []),
    "",
  ].join("\n");
}

const reportSchema = z.object({
  model: z.string(),
  startedAt: z.string(),
  runsPerTask: z.number(),
  meta: z.object({ tandemCommit: z.string(), dirty: z.boolean(), promptHash: z.string(), toolsHash: z.string() }),
  tasks: z.array(z.object({ task: z.string(), runs: z.number(), passes: z.number(), costUsd: z.number().nullable() })),
  overall: z.object({ passAt1: z.object({ value: z.number(), low: z.number(), high: z.number() }) }),
});

export type ParsedReport = z.infer<typeof reportSchema>;

export function parseReport(text: string, label: string): ParsedReport {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new Error(`${label} is not JSON: ${(error as Error).message}`);
  }
  const parsed = reportSchema.safeParse(raw);
  if (!parsed.success)
    throw new Error(
      `${label} is not an eval report of this version: ${parsed.error.issues[0]?.path.join(".")} ${parsed.error.issues[0]?.message}`,
    );
  return parsed.data;
}

/** A and B paired task by task: the difference in pass@1 with its interval, and where they differ. */
export function compareReports(a: ParsedReport, b: ParsedReport): string {
  const rates = (r: ParsedReport): TaskRate[] => r.tasks.map((t) => ({ task: t.task, runs: t.runs, passes: t.passes }));
  const paired = comparePaired(rates(a), rates(b));
  const d = paired.difference;
  const signed = (x: number) => `${x >= 0 ? "+" : ""}${Math.round(x * 100)}`;
  const verdict =
    paired.tasks < 2
      ? "too few tasks in common to tell"
      : d.low > 0
        ? "B is better"
        : d.high < 0
          ? "A is better"
          : "no difference this eval can tell apart from noise";
  const names = [...new Set([...a.tasks.map((t) => t.task), ...b.tasks.map((t) => t.task)])];
  const cell = (r: ParsedReport, name: string) => {
    const t = r.tasks.find((x) => x.task === name);
    return t ? `${t.passes}/${t.runs}` : "—";
  };
  const describe = (r: ParsedReport) =>
    `${r.model} (${r.startedAt}; Tandem ${r.meta.tandemCommit.slice(0, 12)}${r.meta.dirty ? "+changes" : ""}, prompt ${r.meta.promptHash.slice(0, 12)}, tools ${r.meta.toolsHash.slice(0, 12)}): pass@1 ${interval(r.overall.passAt1)}`;
  return [
    "# Eval comparison",
    `A: ${describe(a)}`,
    `B: ${describe(b)}`,
    "",
    `**B − A: ${signed(d.value)} points (95% CI ${signed(d.low)} to ${signed(d.high)}) over ${paired.tasks} tasks in common: ${verdict}.** B better on ${paired.better.length}, worse on ${paired.worse.length}.`,
    "",
    "| task | A | B |",
    "|---|---|---|",
    ...names.map((n) => `| ${n} | ${cell(a, n)} | ${cell(b, n)} |`),
    "",
  ].join("\n");
}
