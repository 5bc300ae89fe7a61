import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import type { Context, Services } from "@/server/api/context";
import { createCallerFactory } from "@/server/api/trpc";
import { appRouter } from "@/server/api/root";
import { listPendingApprovals } from "@/server/db/repositories/approvals";
import { listEvents } from "@/server/db/repositories/session-events";
import type { Sandbox } from "@/server/sandbox/sandbox";
import type { SessionEvent } from "@/lib/session-events";
import type { EvalTask } from "@/server/eval/tasks";

// Runs eval tasks through Tandem's real runtime, headless: the same services the server builds
// (API, agent runtime, tools, sandbox), driven through the tRPC caller as a person would drive
// them. Each run imports the task's repository as a fresh project, sends the request, answers
// what the agent asks (approvals are granted, questions answered from the task), and scores the
// workspace with the task's check command, run in the sandbox without network.

export type RunResult = {
  task: string;
  kind: string;
  run: number;
  success: boolean;
  /** Why it failed, in a few words (check output, "did not ask", the turn's end). */
  reason: string;
  finish: string;
  steps: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  wallMs: number;
  toolErrors: number;
  loopGuardStops: number;
  asked: boolean;
};

export type EvalHost = {
  services: Services;
  user: NonNullable<Context["user"]>;
  sandbox: Sandbox;
};

const CHECK_TIMEOUT_MS = 120_000;
const CHECK_DIR = ".eval-check";

export async function runTask(host: EvalHost, task: EvalTask, run: number, model: string): Promise<RunResult> {
  const caller = createCallerFactory(appRouter)({ user: host.user, services: host.services });
  const started = Date.now();
  // A neutral name: the project's name is in the system prompt, and a task's name would tell the
  // model what is expected of it.
  const project = await caller.project.create({
    name: "project",
    importPath: task.repoDir,
  });
  try {
    // People are not watching an eval: tools run without asking, as in yolo mode; whatever still
    // asks (a question, a guarded command) is answered below.
    await caller.agent.updateSettings({ projectId: project.id, approvalMode: "yolo" });
    const session = await caller.session.create({ projectId: project.id, model, title: `eval ${task.name}` });
    await caller.session.send({ sessionId: session.id, text: task.request });
    const deadline = started + task.timeoutSeconds * 1000;
    let asked = false;
    let finish = "timeout";
    for (;;) {
      // The deadline's timer is cleared once the turn is idle: a pending one kept the process
      // alive for up to the task's timeout after the report.
      let timer: NodeJS.Timeout | undefined;
      const done = await Promise.race([
        host.services.agent.idle(session.id).then(() => true),
        new Promise<boolean>((resolve) => (timer = setTimeout(resolve, Math.max(0, deadline - Date.now()), false))),
      ]).finally(() => clearTimeout(timer));
      if (!done) {
        await caller.session.cancel({ sessionId: session.id });
        break;
      }
      const pending = await listPendingApprovals(host.services.db, session.id);
      if (!pending.length) {
        finish = lastFinish(await listEvents(host.services.db, session.id));
        break;
      }
      for (const approval of pending) {
        if (approval.kind === "question") {
          asked = true;
          if (task.answer)
            await caller.approval.respond({ approvalId: approval.id, decision: "approve", answer: task.answer });
          else
            await caller.approval.respond({
              approvalId: approval.id,
              decision: "reject",
              feedback: "I leave that to you.",
            });
        } else {
          await caller.approval.respond({ approvalId: approval.id, decision: "approve" });
        }
      }
    }
    const events = await listEvents(host.services.db, session.id);
    const metrics = measure(events);
    const workspace = await host.services.files.open(project.id);
    const check = await runCheck(host.sandbox, workspace.root, task);
    const success = check.passed && (!task.mustAsk || asked);
    const reason = !check.passed
      ? `check failed: ${check.output.trim().split("\n").slice(-3).join(" | ").slice(0, 300)}`
      : task.mustAsk && !asked
        ? "did not ask"
        : "passed";
    return {
      task: task.name,
      kind: task.kind,
      run,
      success,
      reason,
      finish,
      ...metrics,
      wallMs: Date.now() - started,
      asked,
    };
  } finally {
    await host.services.agent.stopProject(project.id).catch(() => {});
  }
}

function measure(events: SessionEvent[]) {
  let steps = 0;
  let inputTokens = 0;
  let outputTokens = 0;
  let costUsd = 0;
  let toolErrors = 0;
  let loopGuardStops = 0;
  for (const event of events) {
    if (event.type === "usage") {
      steps += 1;
      inputTokens += event.payload.step.inputTokens;
      outputTokens += event.payload.step.outputTokens;
      costUsd = event.payload.sessionCostUsd ?? costUsd;
    } else if (event.type === "tool_result" && !event.payload.ok) toolErrors += 1;
    else if (event.type === "turn_finished" && event.payload.reason === "loop_guard") loopGuardStops += 1;
  }
  return { steps, inputTokens, outputTokens, costUsd, toolErrors, loopGuardStops };
}

function lastFinish(events: SessionEvent[]): string {
  const end = events.findLast((e) => e.type === "turn_finished");
  return end?.type === "turn_finished" ? end.payload.reason : "none";
}

/** The task's check, in the sandbox with no network; its own files are copied in only now. */
async function runCheck(sandbox: Sandbox, root: string, task: EvalTask): Promise<{ passed: boolean; output: string }> {
  if (task.checkDir) {
    await fs.rm(path.join(root, CHECK_DIR), { recursive: true, force: true });
    await fs.cp(task.checkDir, path.join(root, CHECK_DIR), { recursive: true });
  }
  const launch = await sandbox.launch({
    workspaceRoot: root,
    command: ["bash", "-c", task.check],
    source: { kind: "discovery", id: "eval-check" },
    network: "none",
    newSession: true,
    env: { CI: "1" },
  });
  const { command } = launch;
  return new Promise<{ passed: boolean; output: string }>((resolve) => {
    execFile(
      command.file,
      command.args,
      {
        cwd: command.cwd,
        env: command.env as NodeJS.ProcessEnv,
        uid: command.uid,
        gid: command.gid,
        encoding: "utf8",
        timeout: CHECK_TIMEOUT_MS,
        maxBuffer: 4 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        resolve({ passed: !error, output: `${stdout}${stderr}` });
      },
    );
  }).finally(() => launch.close());
}

/** Every task, `runs` times each, one after another (a workspace and a turn at a time keeps the measures clean). */
export async function runEval(
  host: EvalHost,
  input: { tasks: EvalTask[]; runs: number; model: string; onResult?(result: RunResult): void },
): Promise<RunResult[]> {
  const results: RunResult[] = [];
  for (const task of input.tasks) {
    for (let run = 1; run <= input.runs; run++) {
      const result = await runTask(host, task, run, input.model);
      results.push(result);
      input.onResult?.(result);
    }
  }
  return results;
}
