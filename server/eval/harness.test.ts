import fs from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startModelServer, type ScriptedReply } from "@/e2e/fixtures/model-server/server";
import { createTestServices } from "@/server/test/services";
import { runEval } from "./harness";
import { buildReport, compareReports, markdownReport, parseReport } from "./report";
import { loadTasks } from "./tasks";
import { testSandbox } from "@/server/test/sandbox";

// The eval harness proven with the scripted model: an agent that does the right thing scores
// 100%, one that does the wrong thing 0%, on two of the shipped tasks, through the real runtime,
// the real file tools and the tasks' own checks.

const TASKS_DIR = path.resolve("eval/tasks");
let model: Awaited<ReturnType<typeof startModelServer>>;
let env: Awaited<ReturnType<typeof createTestServices>>;
beforeAll(async () => {
  model = await startModelServer();
  env = await createTestServices({ modelBaseUrl: model.url, importRoots: [TASKS_DIR] });
});
afterAll(async () => {
  await env.dispose();
  await model.close();
});

const read = (id: string, file: string): ScriptedReply => ({
  toolCalls: [{ id, name: "read_file", arguments: { path: file } }],
});
const edit = (id: string, file: string, from: string, to: string, all = false) => ({
  id,
  name: "edit",
  arguments: { path: file, old_string: from, new_string: to, ...(all ? { replace_all: true } : {}) },
});

const good: ScriptedReply[] = [
  { match: "`npm test` fails", ...read("g1", "src/math.js") },
  { match: "return a - b", toolCalls: [edit("g2", "src/math.js", "return a - b;", "return a + b;")] },
  {
    match: "Rename the function getUsr",
    toolCalls: ["store", "profile", "admin"].map((f) => ({
      id: `r-${f}`,
      name: "read_file",
      arguments: { path: `src/${f}.js` },
    })),
  },
  {
    match: "isKnown",
    toolCalls: ["store", "profile", "admin"].map((f) => edit(`e-${f}`, `src/${f}.js`, "getUsr", "getUser", true)),
  },
  { text: "Done, and verified." },
  { text: "Done, and verified." },
];
const bad: ScriptedReply[] = [
  // Makes the test pass by changing the test, not the code.
  { match: "`npm test` fails", ...read("b1", "test/math.test.js") },
  {
    match: "assert.strictEqual(add(2, 3), 5)",
    toolCalls: [
      edit("b2", "test/math.test.js", "assert.strictEqual(add(2, 3), 5)", "assert.strictEqual(add(2, 3), -1)"),
    ],
  },
  // Renames the definition only.
  { match: "Rename the function getUsr", ...read("b3", "src/store.js") },
  { match: "users.get(id)", toolCalls: [edit("b4", "src/store.js", "getUsr", "getUser", true)] },
  { text: "All done." },
  { text: "All done." },
];

describe("npm run eval", () => {
  it("scores a good scripted agent 100% and a bad one 0% on two shipped tasks, and reports and compares the runs", async () => {
    const all = await loadTasks(TASKS_DIR);
    expect(all.length).toBeGreaterThanOrEqual(12);
    const tasks = all.filter((t) => t.name === "fix-failing-test" || t.name === "rename-refactor");
    const user = await env.createUser();
    const host = { services: env.services, user, sandbox: testSandbox("none") };

    model.load({ replies: good });
    const goodRuns = await runEval(host, { tasks, runs: 1, model: "openai-compatible:scripted" });
    // The model is not told the task's name: the project's name in the prompt is neutral.
    for (const request of model.requests) {
      const system = String(request.messages[0]!.content);
      expect(system).toContain('Project "project"');
      for (const task of tasks) expect(system).not.toContain(task.name);
    }
    model.load({ replies: bad });
    const badRuns = await runEval(host, { tasks, runs: 1, model: "openai-compatible:scripted" });

    expect(goodRuns.map((r) => [r.task, r.success, r.reason])).toEqual([
      ["fix-failing-test", true, "passed"],
      ["rename-refactor", true, "passed"],
    ]);
    expect(badRuns.map((r) => [r.task, r.success])).toEqual([
      ["fix-failing-test", false],
      ["rename-refactor", false],
    ]);
    expect(badRuns[0]!.reason).toContain("the test was changed");
    for (const run of goodRuns) {
      expect(run.steps).toBe(3);
      expect(run.inputTokens).toBeGreaterThan(0);
      expect(run.toolErrors).toBe(0);
      expect(run.finish).toBe("completed");
    }

    const before = buildReport("openai-compatible:scripted", new Date(), 1, badRuns);
    const after = buildReport("openai-compatible:scripted", new Date(), 1, goodRuns);
    expect(before.overall.successRate).toBe(0);
    expect(after.overall.successRate).toBe(1);
    expect(markdownReport(after)).toMatch(/\| \*\*overall\*\* \| \*\*100%\*\* \| 3 \|/);
    expect(markdownReport(before)).toContain("- fix-failing-test #1: check failed:");
    const roundTrip = parseReport(JSON.stringify(before), "before.json");
    expect(compareReports(roundTrip, after)).toContain("| rename-refactor | 0% → 100% (+100%) |");
  });

  it("refuses a task folder that is not a task, saying what is missing", async () => {
    const dir = await fs.mkdtemp(path.join(env.dataDir, "tasks-"));
    await fs.mkdir(path.join(dir, "broken"));
    await fs.writeFile(path.join(dir, "broken", "task.json"), JSON.stringify({ request: "x" }));
    await expect(loadTasks(dir)).rejects.toThrow(/broken\/task\.json: check: /);
  });
});
