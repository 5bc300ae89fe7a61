import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { loadConfig } from "@/server/env/load-config";
import { createServices } from "@/server/services";
import { createHeadlessUser } from "@/server/db/repositories/users";
import { loadTasks } from "@/server/eval/tasks";
import { prepareTasks, runEval } from "@/server/eval/harness";
import { buildReport, compareReports, markdownReport, parseReport } from "@/server/eval/report";
import { checkSandbox } from "@/server/eval/sandbox-run";
import { fingerprint } from "@/server/eval/fingerprint";
import { LIST_PRICES, parsePrice } from "@/server/eval/prices";

// npm run eval -- --model <provider:model> [options]      (docs/eval.md)
// npm run eval -- --compare a.json b.json
// Measures a model on real tasks through Tandem's own runtime, headless: the model is configured
// by the same environment variables as the server (docs/configuration.md, "Model providers"); the
// database is a temporary embedded PostgreSQL unless DATABASE_URL is set; everything else lives
// in a temp dir. The process ends once the report is written.

const USAGE = `Usage: npm run eval -- --model <provider:model> [--runs 3] [--concurrency 2] [--split all|dev|held-out]
                     [--task <name>]... [--tasks eval/tasks] [--out eval/results] [--price in,out[,cached]]
       npm run eval -- --compare a.json b.json`;

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      model: { type: "string" },
      tasks: { type: "string" },
      task: { type: "string", multiple: true },
      split: { type: "string" },
      runs: { type: "string" },
      concurrency: { type: "string" },
      out: { type: "string" },
      price: { type: "string" },
      compare: { type: "boolean" },
      help: { type: "boolean" },
    },
  });
  if (values.help) return (console.log(USAGE), 0);
  if (values.compare) {
    if (positionals.length !== 2) throw new Error(`--compare takes two report files.\n${USAGE}`);
    const [a, b] = await Promise.all(
      positionals.map(async (file) => parseReport(await fs.readFile(file, "utf8"), file)),
    );
    console.log(compareReports(a!, b!));
    return 0;
  }
  if (!values.model) throw new Error(`--model is required.\n${USAGE}`);
  const model = values.model;
  const whole = (name: string, text: string | undefined, fallback: number, max: number) => {
    const n = Number(text ?? fallback);
    if (!Number.isInteger(n) || n < 1 || n > max) throw new Error(`--${name} must be a whole number from 1 to ${max}.`);
    return n;
  };
  const runs = whole("runs", values.runs, 3, 100);
  const concurrency = whole("concurrency", values.concurrency, 2, 32);
  const split = values.split ?? "all";
  if (!["all", "dev", "held-out"].includes(split)) throw new Error("--split is all, dev or held-out.");
  const prices = values.price ? parsePrice(values.price) : (LIST_PRICES[model] ?? null);
  const tasksDir = path.resolve(values.tasks ?? "eval/tasks");
  let tasks = (await loadTasks(tasksDir)).filter((t) => split === "all" || t.split === split);
  if (values.task?.length) {
    const unknown = values.task.filter((name) => !tasks.some((t) => t.name === name));
    if (unknown.length)
      throw new Error(`No such task${unknown.length > 1 ? "s" : ""} in ${tasksDir}: ${unknown.join(", ")}.`);
    tasks = tasks.filter((t) => values.task!.includes(t.name));
  }

  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "tandem-eval-"));
  const workDir = path.join(dataDir, "task-repos");
  const config = { ...loadConfig(), dataDir, importRoots: [tasksDir, workDir] };
  const built = await createServices(config, (line) => console.error(line));
  const startedAt = new Date();
  try {
    const sandbox = built.services.sandbox;
    const { available } = await checkSandbox(sandbox, [
      "bash",
      "node",
      "npm",
      "python3",
      "git",
      ...tasks.flatMap((t) => t.requires),
    ]);
    const skipped = tasks
      .map((t) => ({ task: t.name, missing: t.requires.filter((c) => !available.includes(c)) }))
      .filter((s) => s.missing.length);
    tasks = tasks.filter((t) => !skipped.some((s) => s.task === t.name));
    for (const s of skipped) console.error(`Skipping ${s.task}: the sandbox has no ${s.missing.join(", ")}.`);
    if (!tasks.length) throw new Error("No task left to run.");
    const prepared = await prepareTasks(tasks, workDir);
    const user = await createHeadlessUser(built.services.db, {
      name: "Eval",
      email: `eval-${Date.now()}@tandem.invalid`,
    });
    const outDir = path.resolve(values.out ?? path.join("eval", "results"));
    const stem = path.join(
      outDir,
      `${startedAt.toISOString().replace(/[:.]/g, "-")}-${model.replace(/[^a-z0-9.-]+/gi, "_")}`,
    );
    console.error(
      `Running ${tasks.length} task(s) × ${runs} with ${model}, ${concurrency} at a time (sandbox: ${built.sandboxMode})…`,
    );
    const results = await runEval(
      { services: built.services, user: { ...user }, sandbox },
      {
        tasks: prepared,
        runs,
        model,
        concurrency,
        recordDir: `${stem}-runs`,
        onResult: (r) =>
          console.error(
            `${r.success ? "PASS" : "FAIL"} ${r.task} #${r.run} (${r.steps} steps, ${(r.wallMs / 1000).toFixed(1)} s)${r.success ? "" : `: ${r.reason}`}`,
          ),
      },
    );
    const report = buildReport(
      {
        model,
        startedAt,
        runsPerTask: runs,
        prices,
        meta: {
          ...(await fingerprint(process.cwd())),
          settings: {
            runs,
            concurrency,
            split,
            tasks: tasksDir,
            prices: prices ? `${prices.input}/${prices.output}/${prices.cachedInput} USD per M tokens` : "none",
          },
          sandbox: { mode: built.sandboxMode, commands: available },
          skipped,
        },
      },
      results,
    );
    await fs.mkdir(outDir, { recursive: true });
    await fs.writeFile(`${stem}.json`, JSON.stringify(report, null, 2));
    await fs.writeFile(`${stem}.md`, markdownReport(report));
    console.log(markdownReport(report));
    console.error(`Wrote ${stem}.json, ${stem}.md and each run's session log, diff and final message in ${stem}-runs/`);
    return 0;
  } finally {
    await built.dispose();
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}

// Exits once the report is out: a handle left open somewhere must not keep a finished eval alive.
main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
