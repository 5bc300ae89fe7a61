import fs from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startModelServer, type ScriptedReply } from "@/e2e/fixtures/model-server/server";
import { createTestServices } from "@/server/test/services";
import os from "node:os";
import { endsOnQuestion, prepareTasks, runEval } from "./harness";
import { buildReport, compareReports, markdownReport, parseReport } from "./report";
import { loadTasks } from "./tasks";
import { testSandbox } from "@/server/test/sandbox";

// The eval harness proven with the scripted model: an agent that does the right thing scores
// 100%, one that does the wrong thing 0%, on two of the shipped tasks, through the real runtime,
// the real file tools and the tasks' own checks; each run leaves its record. (Every task's own
// solutions are replayed in solutions.test.ts.)

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
  it("scores a good scripted agent 100% and a bad one 0% on two shipped tasks, and reports and compares the runs", {
    timeout: 300_000,
  }, async () => {
    const all = await loadTasks(TASKS_DIR);
    expect(all.length).toBeGreaterThanOrEqual(12);
    const tasks = await prepareTasks(
      all.filter((t) => t.name === "fix-failing-test" || t.name === "rename-refactor"),
      env.dataDir,
    );
    const user = await env.createUser();
    const host = { services: env.services, user, sandbox: testSandbox("none") };
    const recordDir = await fs.mkdtemp(path.join(os.tmpdir(), "tandem-eval-records-"));

    model.load({ replies: good });
    const goodRuns = await runEval(host, { tasks, runs: 1, model: "openai-compatible:scripted", recordDir });
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
    expect(badRuns[0]!.reason).toContain("test/math.test.js was changed");
    expect(badRuns[0]!.verdicts.find((v) => v.name === "unchanged")?.passed).toBe(false);
    // The record of a run: the whole session log, the final diff and the final message.
    const record = path.join(recordDir, "fix-failing-test-1");
    expect(await fs.readFile(path.join(record, "final.diff"), "utf8")).toContain("-  return a - b;\n+  return a + b;");
    expect(await fs.readFile(path.join(record, "final-message.md"), "utf8")).toBe("Done, and verified.\n");
    const log = (await fs.readFile(path.join(record, "session.jsonl"), "utf8")).trim().split("\n");
    expect(log.map((line) => JSON.parse(line).type)).toContain("tool_result");
    await fs.rm(recordDir, { recursive: true, force: true });
    for (const run of goodRuns) {
      expect(run.steps).toBe(3);
      expect(run.inputTokens).toBeGreaterThan(0);
      expect(run.toolErrors).toBe(0);
      expect(run.finish).toBe("completed");
    }

    const meta = {
      tandemCommit: "abc",
      dirty: false,
      promptHash: "p",
      toolsHash: "t",
      settings: {},
      sandbox: { mode: "none", commands: [] },
      skipped: [],
    };
    const input = { model: "openai-compatible:scripted", startedAt: new Date(), runsPerTask: 1, meta };
    const before = buildReport(input, badRuns);
    const after = buildReport(input, goodRuns);
    expect(before.overall.passAt1.value).toBe(0);
    expect(after.overall.passAt1.value).toBe(1);
    expect(markdownReport(after)).toContain("| **overall** | | **2/2** | 3 |");
    expect(markdownReport(before)).toContain("- fix-failing-test #1: test/math.test.js was changed");
    const comparison = compareReports(
      parseReport(JSON.stringify(before), "before.json"),
      parseReport(JSON.stringify(after), "after.json"),
    );
    expect(comparison).toContain("| rename-refactor | 0/1 | 1/1 |");
    expect(comparison).toContain("B − A: +100 points");
  });

  it("counts a turn that ends on a question as asking", () => {
    expect(endsOnQuestion("There are three timeouts.\n\nWhich one do you mean?")).toBe(true);
    expect(endsOnQuestion("Which one?\n\n- connect\n- read?")).toBe(true);
    expect(endsOnQuestion("Why did it fail? The count was off.\n\nFixed it.")).toBe(false);
    expect(endsOnQuestion("")).toBe(false);
  });

  it("refuses a task folder that is not a task, saying what is missing", async () => {
    const dir = await fs.mkdtemp(path.join(env.dataDir, "tasks-"));
    await fs.mkdir(path.join(dir, "broken"));
    await fs.writeFile(path.join(dir, "broken", "task.json"), JSON.stringify({ request: "x" }));
    await expect(loadTasks(dir)).rejects.toThrow(/broken\/task\.json: check: /);
  });
});
