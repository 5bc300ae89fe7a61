import path from "node:path";
import type { Context, Services } from "@/server/api/context";
import { createCallerFactory } from "@/server/api/trpc";
import { appRouter } from "@/server/api/root";
import { listPendingApprovals } from "@/server/db/repositories/approvals";
import { listEvents } from "@/server/db/repositories/session-events";
import type { Sandbox } from "@/server/sandbox/sandbox";
import type { SessionEvent } from "@/lib/session-events";
import type { EvalTask } from "@/server/eval/tasks";
import { buildScaffold } from "@/server/eval/scaffold";
import { grade, type Verdict } from "@/server/eval/grade";
import { finalMessage, workspaceDiff, writeRunRecord } from "@/server/eval/record";

// Runs eval tasks through Tandem's real runtime, headless: the same services the server builds
// (API, agent runtime, tools, sandbox), driven through the tRPC caller as a person would drive
// them. Each run imports the task's repository as a fresh project, sends the request, plays the
// person (answers questions from the task, answers approvals by its rules, replies to a turn
// that ends on a question, saves a file mid-run when the task says so), then grades the
// workspace (grade.ts) and keeps the run's record (record.ts).

export type RunResult = {
  task: string;
  kind: string;
  split: "dev" | "held-out";
  run: number;
  success: boolean;
  /** Why it failed, in a few words (check output, "did not ask", the turn's end). */
  reason: string;
  verdicts: Verdict[];
  finish: string;
  steps: number;
  inputTokens: number;
  cachedInputTokens: number;
  outputTokens: number;
  /** What the session's usage events say it cost; null when the model has no price in the settings. */
  costUsd: number | null;
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

/** A task ready to import: `importDir` is repo/, or repo/ over its scaffold built under the work dir. */
export type PreparedTask = EvalTask & { importDir: string };

/** Builds the scaffolds under `workDir`, which must be an import root of the services. */
export async function prepareTasks(tasks: EvalTask[], workDir: string): Promise<PreparedTask[]> {
  return Promise.all(
    tasks.map(async (task) => {
      if (!task.scaffold) return { ...task, importDir: task.repoDir };
      const importDir = path.join(workDir, task.name);
      await buildScaffold({ ...task.scaffold, seed: task.name, repoDir: task.repoDir }, importDir);
      return { ...task, importDir };
    }),
  );
}

/** A person asked a question in plain text gets an answer this many times per run, at most. */
const MAX_FOLLOW_UPS = 2;
const DECLINE = "I leave that to you: decide yourself.";

export async function runTask(
  host: EvalHost,
  task: PreparedTask,
  run: number,
  options: { model: string; recordDir?: string },
): Promise<RunResult> {
  const caller = createCallerFactory(appRouter)({ user: host.user, services: host.services });
  const started = Date.now();
  // A neutral name: the project's name is in the system prompt, and a task's name would tell the
  // model what is expected of it.
  const project = await caller.project.create({ name: "project", importPath: task.importDir });
  try {
    await caller.agent.updateSettings({ projectId: project.id, approvalMode: task.approvalMode });
    const session = await caller.session.create({ projectId: project.id, model: options.model, title: "eval" });
    const workspace = await host.services.files.open(project.id);
    await caller.session.send({ sessionId: session.id, text: task.request });
    const deadline = started + task.timeoutSeconds * 1000;
    let asked = false;
    let followUps = 0;
    let edited = false;
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
        const events = await listEvents(host.services.db, session.id);
        finish = lastFinish(events);
        // A question at the end of a turn is asking too: the person answers it, as they would.
        if (finish === "completed" && endsOnQuestion(finalMessage(events)) && followUps < MAX_FOLLOW_UPS) {
          asked = true;
          followUps += 1;
          await caller.session.send({ sessionId: session.id, text: task.answer ?? DECLINE });
          continue;
        }
        break;
      }
      for (const approval of pending) {
        if (task.personEdit && !edited) {
          edited = true;
          await workspace.write(task.personEdit.path, task.personEdit.content, { createParents: true });
        }
        if (approval.kind === "question") {
          asked = true;
          await caller.approval.respond(
            task.answer
              ? { approvalId: approval.id, decision: "approve", answer: task.answer }
              : { approvalId: approval.id, decision: "reject", feedback: DECLINE },
          );
          continue;
        }
        const asks = `${approval.toolName} ${JSON.stringify(approval.input)}`;
        const rule = task.approvals.find((r) => new RegExp(r.match, "i").test(asks));
        await caller.approval.respond({
          approvalId: approval.id,
          decision: rule?.decision ?? "approve",
          ...(rule?.feedback ? { feedback: rule.feedback } : {}),
        });
      }
    }
    // Background jobs end before grading: nothing the agent started may change what is judged.
    await host.services.agent.stopProject(project.id).catch(() => {});
    const events = await listEvents(host.services.db, session.id);
    const message = finalMessage(events);
    const diff = options.recordDir ? await workspaceDiff(workspace, task.importDir) : "";
    const verdict = await grade({
      task,
      sandbox: host.sandbox,
      workspace,
      originalDir: task.importDir,
      finalMessage: message,
      asked,
    });
    const result: RunResult = {
      task: task.name,
      kind: task.kind,
      split: task.split,
      run,
      success: verdict.passed,
      reason: verdict.reason,
      verdicts: verdict.verdicts,
      finish,
      ...measure(events),
      wallMs: Date.now() - started,
      asked,
    };
    if (options.recordDir)
      await writeRunRecord(path.join(options.recordDir, `${task.name}-${run}`), { events, diff, message, result });
    return result;
  } finally {
    await host.services.agent.stopProject(project.id).catch(() => {});
  }
}

/** The message's last paragraph asks the person something (a line of it ends on a question mark). */
export function endsOnQuestion(message: string): boolean {
  const last =
    message
      .trim()
      .split(/\n\s*\n/)
      .at(-1) ?? "";
  return /\?[*_)\s]*$/m.test(last);
}

function measure(events: SessionEvent[]) {
  let steps = 0;
  let inputTokens = 0;
  let cachedInputTokens = 0;
  let outputTokens = 0;
  let costUsd: number | null = null;
  let toolErrors = 0;
  let loopGuardStops = 0;
  for (const event of events) {
    if (event.type === "usage") {
      steps += 1;
      inputTokens += event.payload.step.inputTokens;
      cachedInputTokens += event.payload.step.cachedInputTokens;
      outputTokens += event.payload.step.outputTokens;
      if (event.payload.stepCostUsd !== null) costUsd = event.payload.sessionCostUsd;
    } else if (event.type === "tool_result" && !event.payload.ok) toolErrors += 1;
    else if (event.type === "turn_finished" && event.payload.reason === "loop_guard") loopGuardStops += 1;
  }
  return { steps, inputTokens, cachedInputTokens, outputTokens, costUsd, toolErrors, loopGuardStops };
}

function lastFinish(events: SessionEvent[]): string {
  const end = events.findLast((e) => e.type === "turn_finished");
  return end?.type === "turn_finished" ? end.payload.reason : "none";
}

/**
 * Every task `runs` times, `concurrency` runs at once (each its own project and session), in a
 * fixed order: run 1 of every task before run 2 of any, so a stopped eval still covers every task.
 */
export async function runEval(
  host: EvalHost,
  input: {
    tasks: PreparedTask[];
    runs: number;
    model: string;
    concurrency?: number;
    recordDir?: string;
    onResult?(result: RunResult): void;
  },
): Promise<RunResult[]> {
  const queue = Array.from({ length: input.runs }, (_, r) => input.tasks.map((task) => ({ task, run: r + 1 }))).flat();
  const results: RunResult[] = new Array(queue.length);
  let next = 0;
  const worker = async () => {
    while (next < queue.length) {
      const index = next++;
      const { task, run } = queue[index]!;
      const result = await runTask(host, task, run, { model: input.model, recordDir: input.recordDir });
      results[index] = result;
      input.onResult?.(result);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(input.concurrency ?? 1, queue.length)) }, worker));
  return results;
}
