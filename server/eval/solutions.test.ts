import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startModelServer } from "@/e2e/fixtures/model-server/server";
import { createTestServices } from "@/server/test/services";
import { sandboxMode } from "@/server/test/sandbox-guard";
import { testSandbox } from "@/server/test/sandbox";
import { prepareTasks, runTask, type PreparedTask, type RunResult } from "./harness";
import { checkSandbox } from "./sandbox-run";
import { loadSolutions, replayStep, type Solution } from "./solutions";
import { loadTasks } from "./tasks";

// Every shipped task proves its grader through the real runtime, tools and sandbox: a scripted
// model replays each of its known-correct solutions (must pass) and known-wrong ones (must
// fail), and an agent that only answers "ok" must fail. All runs share one server and run at
// once, so the whole set stays within about a minute and a half on two cores.

const TASKS_DIR = path.resolve("eval/tasks");
const CONCURRENCY = 6;

type Job = { task: PreparedTask; solution: Solution | "ok"; model: string };
const outcomes = new Map<string, { job: Job; result: RunResult }[]>();
let tasks: PreparedTask[] = [];
let missing = new Map<string, string[]>();
let cleanup: () => Promise<void> = async () => {};

beforeAll(async () => {
  const workDir = await fs.mkdtemp(path.join(os.tmpdir(), "tandem-eval-tasks-"));
  tasks = await prepareTasks(await loadTasks(TASKS_DIR), workDir);
  const jobs: Job[] = [];
  for (const task of tasks) {
    for (const solution of [...(await loadSolutions(task.dir)), "ok" as const])
      jobs.push({ task, solution, model: `replay-${jobs.length}` });
  }
  const byModel = new Map(jobs.map((job) => [job.model, job]));
  const model = await startModelServer({
    respond: ({ model: id, messages }) => {
      const job = byModel.get(id);
      if (!job) return null;
      if (job.solution === "ok") return { text: "ok" };
      const step = messages.filter((m) => m.role === "assistant").length;
      return replayStep(job.solution, (file) => existsSync(path.join(job.task.importDir, file)), step);
    },
  });
  const env = await createTestServices({
    modelBaseUrl: model.url,
    importRoots: [TASKS_DIR, workDir],
    shell: true,
    sandbox: sandboxMode,
  });
  cleanup = async () => {
    await env.dispose();
    await model.close();
    await fs.rm(workDir, { recursive: true, force: true });
  };
  const sandbox = testSandbox(sandboxMode);
  const { available } = await checkSandbox(sandbox, [...new Set(tasks.flatMap((t) => t.requires))]);
  missing = new Map(tasks.map((t) => [t.name, t.requires.filter((c) => !available.includes(c))]));
  const host = { services: env.services, user: await env.createUser(), sandbox };
  const runnable = jobs.filter((job) => !missing.get(job.task.name)?.length);
  let next = 0;
  const worker = async () => {
    while (next < runnable.length) {
      const job = runnable[next++]!;
      const result = await runTask(host, job.task, 1, { model: `openai-compatible:${job.model}` });
      outcomes.set(job.task.name, [...(outcomes.get(job.task.name) ?? []), { job, result }]);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}, 900_000);
afterAll(() => cleanup());

describe("eval/tasks", () => {
  it("has enough tasks, a held-out part, and a reference solution for each", async () => {
    expect(tasks.length).toBeGreaterThanOrEqual(12);
    expect(tasks.some((t) => t.split === "held-out")).toBe(true);
    for (const task of tasks) expect((await loadSolutions(task.dir))[0]?.name, task.name).toBe("solutions/reference");
  });

  it("every task: its solutions pass, its wrong answers and an agent that answers 'ok' fail", () => {
    const wrong: string[] = [];
    for (const task of tasks) {
      if (missing.get(task.name)?.length) continue;
      for (const { job, result } of outcomes.get(task.name) ?? []) {
        const name = job.solution === "ok" ? "ok" : job.solution.name;
        const expected = job.solution !== "ok" && job.solution.correct;
        if (result.success !== expected)
          wrong.push(
            `${task.name} ${name}: ${result.success ? "passed" : `failed (${result.reason}; turn ${result.finish})`}`,
          );
      }
      expect(outcomes.get(task.name)?.length, task.name).toBeGreaterThanOrEqual(2);
    }
    expect(wrong).toEqual([]);
  });
});
