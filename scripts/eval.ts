import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { loadConfig } from "@/server/env";
import { createServices } from "@/server/services";
import { createHeadlessUser } from "@/server/db/repositories/users";
import { loadTasks } from "@/server/eval/tasks";
import { runEval } from "@/server/eval/harness";
import { buildReport, compareReports, markdownReport, parseReport } from "@/server/eval/report";

// npm run eval -- --model <provider:model> [--tasks <dir>] [--runs N] [--out <dir>]
// npm run eval -- --compare a.json b.json
// Measures a model on real tasks through Tandem's own runtime, headless: the model is configured
// by the same environment variables as the server (docs/configuration.md, "Model providers"); the database is a
// temporary embedded PostgreSQL unless DATABASE_URL is set; everything else lives in a temp dir.

const USAGE =
  "Usage: npm run eval -- --model <provider:model> [--tasks <dir>] [--runs N] [--out <dir>]\n       npm run eval -- --compare a.json b.json";

async function main() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      model: { type: "string" },
      tasks: { type: "string" },
      runs: { type: "string" },
      out: { type: "string" },
      compare: { type: "boolean" },
      help: { type: "boolean" },
    },
  });
  if (values.help) return console.log(USAGE);
  if (values.compare) {
    if (positionals.length !== 2) throw new Error(`--compare takes two report files.\n${USAGE}`);
    const [a, b] = await Promise.all(
      positionals.map(async (file) => parseReport(await fs.readFile(file, "utf8"), file)),
    );
    return console.log(compareReports(a!, b!));
  }
  if (!values.model) throw new Error(`--model is required.\n${USAGE}`);
  const runs = Number(values.runs ?? "1");
  if (!Number.isInteger(runs) || runs < 1 || runs > 100)
    throw new Error("--runs must be a whole number from 1 to 100.");
  const tasksDir = path.resolve(values.tasks ?? "eval/tasks");
  const tasks = await loadTasks(tasksDir);

  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "tandem-eval-"));
  const config = { ...loadConfig(), dataDir, importRoots: [tasksDir] };
  const built = await createServices(config, (line) => console.error(line));
  const startedAt = new Date();
  try {
    const user = await createHeadlessUser(built.services.db, {
      name: "Eval",
      email: `eval-${Date.now()}@tandem.invalid`,
    });
    console.error(`Running ${tasks.length} task(s) × ${runs} with ${values.model} (sandbox: ${built.sandboxMode})…`);
    const results = await runEval(
      { services: built.services, user: { ...user }, sandbox: built.services.sandbox },
      {
        tasks,
        runs,
        model: values.model,
        onResult: (r) =>
          console.error(
            `${r.success ? "PASS" : "FAIL"} ${r.task} #${r.run} (${r.steps} steps, ${(r.wallMs / 1000).toFixed(1)} s)${r.success ? "" : `: ${r.reason}`}`,
          ),
      },
    );
    const report = buildReport(values.model, startedAt, runs, results);
    const outDir = path.resolve(values.out ?? path.join("eval", "results"));
    await fs.mkdir(outDir, { recursive: true });
    const stem = path.join(
      outDir,
      `${startedAt.toISOString().replace(/[:.]/g, "-")}-${values.model.replace(/[^a-z0-9.-]+/gi, "_")}`,
    );
    await fs.writeFile(`${stem}.json`, JSON.stringify(report, null, 2));
    await fs.writeFile(`${stem}.md`, markdownReport(report));
    console.log(markdownReport(report));
    console.error(`Wrote ${stem}.json and ${stem}.md`);
  } finally {
    await built.dispose();
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
