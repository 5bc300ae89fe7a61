import { z } from "zod";
import type { RunResult } from "@/server/eval/harness";

// What an eval run reports: every run, then per task and overall (success rate, steps, tokens,
// cost, wall time, tool errors, loop-guard stops), as JSON and as a markdown table; and the
// comparison of two reports, e.g. before and after a prompt change.

export type Summary = {
  task: string;
  runs: number;
  successRate: number;
  steps: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  wallSeconds: number;
  toolErrors: number;
  loopGuardStops: number;
};

export type EvalReport = {
  model: string;
  startedAt: string;
  runsPerTask: number;
  results: RunResult[];
  tasks: Summary[];
  overall: Summary;
};

export function buildReport(model: string, startedAt: Date, runsPerTask: number, results: RunResult[]): EvalReport {
  const names = [...new Set(results.map((r) => r.task))];
  const tasks = names.map((name) =>
    summarise(
      name,
      results.filter((r) => r.task === name),
    ),
  );
  return {
    model,
    startedAt: startedAt.toISOString(),
    runsPerTask,
    results,
    tasks,
    overall: summarise("overall", results),
  };
}

/** Means per run, except the error and loop-guard counts, which are totals. */
function summarise(task: string, runs: RunResult[]): Summary {
  const n = Math.max(1, runs.length);
  const mean = (pick: (r: RunResult) => number) => runs.reduce((s, r) => s + pick(r), 0) / n;
  return {
    task,
    runs: runs.length,
    successRate: mean((r) => (r.success ? 1 : 0)),
    steps: mean((r) => r.steps),
    inputTokens: mean((r) => r.inputTokens),
    outputTokens: mean((r) => r.outputTokens),
    costUsd: mean((r) => r.costUsd),
    wallSeconds: mean((r) => r.wallMs / 1000),
    toolErrors: runs.reduce((s, r) => s + r.toolErrors, 0),
    loopGuardStops: runs.reduce((s, r) => s + r.loopGuardStops, 0),
  };
}

const pct = (x: number) => `${Math.round(x * 100)}%`;
const num = (x: number, digits = 1) => (Number.isInteger(x) ? String(x) : x.toFixed(digits));

export function markdownReport(report: EvalReport): string {
  const head =
    "| task | success | steps | input tokens | output tokens | cost (USD) | wall (s) | tool errors | loop-guard stops |\n|---|---|---|---|---|---|---|---|---|";
  const row = (s: Summary) =>
    `| ${s.task} | ${pct(s.successRate)} | ${num(s.steps)} | ${Math.round(s.inputTokens)} | ${Math.round(s.outputTokens)} | ${s.costUsd.toFixed(4)} | ${num(s.wallSeconds)} | ${s.toolErrors} | ${s.loopGuardStops} |`;
  const failures = report.results
    .filter((r) => !r.success)
    .map((r) => `- ${r.task} #${r.run}: ${r.reason} (turn ended: ${r.finish})`);
  return [
    `# Eval: ${report.model}`,
    `${report.startedAt}, ${report.runsPerTask} run(s) per task. Means per run; errors and loop-guard stops are totals.`,
    "",
    head,
    ...report.tasks.map(row),
    `| **overall** | **${pct(report.overall.successRate)}** | ${num(report.overall.steps)} | ${Math.round(report.overall.inputTokens)} | ${Math.round(report.overall.outputTokens)} | ${report.overall.costUsd.toFixed(4)} | ${num(report.overall.wallSeconds)} | ${report.overall.toolErrors} | ${report.overall.loopGuardStops} |`,
    ...(failures.length ? ["", "## Failed runs", ...failures] : []),
    "",
  ].join("\n");
}

const summarySchema = z.object({
  task: z.string(),
  runs: z.number(),
  successRate: z.number(),
  steps: z.number(),
  inputTokens: z.number(),
  outputTokens: z.number(),
  costUsd: z.number(),
  wallSeconds: z.number(),
  toolErrors: z.number(),
  loopGuardStops: z.number(),
});
const reportSchema = z.object({
  model: z.string(),
  startedAt: z.string(),
  tasks: z.array(summarySchema),
  overall: summarySchema,
});

export function parseReport(
  text: string,
  label: string,
): Pick<EvalReport, "model" | "startedAt" | "tasks" | "overall"> {
  const parsed = reportSchema.safeParse(JSON.parse(text));
  if (!parsed.success) throw new Error(`${label} is not an eval report: ${parsed.error.issues[0]?.message}`);
  return parsed.data;
}

/** Two reports side by side: A, B and the change, per task and overall. */
export function compareReports(a: Pick<EvalReport, "model" | "startedAt" | "tasks" | "overall">, b: typeof a): string {
  const delta = (x: number, y: number, fmt: (v: number) => string) =>
    `${fmt(x)} → ${fmt(y)} (${y - x >= 0 ? "+" : ""}${fmt(y - x)})`;
  const names = [...new Set([...a.tasks.map((t) => t.task), ...b.tasks.map((t) => t.task)])];
  const row = (name: string, x: Summary | undefined, y: Summary | undefined) =>
    !x || !y
      ? `| ${name} | ${x ? pct(x.successRate) : "—"} → ${y ? pct(y.successRate) : "—"} | | | |`
      : `| ${name} | ${delta(x.successRate, y.successRate, pct)} | ${delta(x.steps, y.steps, (v) => num(v))} | ${delta(x.inputTokens + x.outputTokens, y.inputTokens + y.outputTokens, (v) => String(Math.round(v)))} | ${delta(x.costUsd, y.costUsd, (v) => v.toFixed(4))} |`;
  return [
    `# Eval comparison`,
    `A: ${a.model} (${a.startedAt}) · B: ${b.model} (${b.startedAt})`,
    "",
    "| task | success A → B | steps | tokens | cost (USD) |",
    "|---|---|---|---|---|",
    ...names.map((n) =>
      row(
        n,
        a.tasks.find((t) => t.task === n),
        b.tasks.find((t) => t.task === n),
      ),
    ),
    row("**overall**", a.overall, b.overall),
    "",
  ].join("\n");
}
