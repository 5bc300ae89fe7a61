import fs from "node:fs/promises";
import path from "node:path";
import type { Sandbox } from "@/server/sandbox/sandbox";
import type { Workspace } from "@/server/workspace/workspace";
import type { EvalTask } from "@/server/eval/tasks";
import { runInSandbox } from "@/server/eval/sandbox-run";

// How a run is judged, by behaviour and never by the shape of the code: the task's hidden check
// (its check/ files reach the workspace only now), the visible tests it names left byte for byte
// as they were, the facts the final message must state, and whether the agent asked when the
// task is ambiguous (ask_user, or a turn that ended on a question).

export const CHECK_DIR = ".eval-check";

/** The lines of a check's output that say what failed (a test runner's summary lines say nothing). */
function telling(output: string): string {
  const lines = output
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  const failures = lines.filter(
    (l) => /not ok|error|assert|expected|fail|want|✖/i.test(l) && !/^# (fail|pass)\b/.test(l),
  );
  return (failures.length ? failures.slice(0, 3) : lines.slice(-3)).join(" | ").slice(0, 300);
}

export type Verdict = { name: string; passed: boolean; detail: string };

export async function grade(input: {
  task: EvalTask;
  sandbox: Sandbox;
  workspace: Workspace;
  /** The repository the run started from (the task's repo/, with its scaffold). */
  originalDir: string;
  finalMessage: string;
  asked: boolean;
}): Promise<{ passed: boolean; reason: string; verdicts: Verdict[] }> {
  const { task, workspace } = input;
  const verdicts: Verdict[] = [];
  for (const file of task.unchanged) {
    const before = await fs.readFile(path.join(input.originalDir, file));
    const after = await workspace.readBytes(file).catch(() => null);
    verdicts.push({
      name: "unchanged",
      passed: after !== null && before.equals(after),
      detail: after === null ? `${file} was deleted` : `${file} was changed`,
    });
  }
  for (const pattern of task.mustMention) {
    verdicts.push({
      name: "mentions",
      passed: new RegExp(pattern, "i").test(input.finalMessage),
      detail: `the final message does not state /${pattern}/`,
    });
  }
  if (task.mustAsk) verdicts.push({ name: "asked", passed: input.asked, detail: "did not ask" });
  // The workspace is the agent's: its files are placed through the Workspace (no link is followed).
  await workspace.delete(CHECK_DIR).catch(() => {});
  if (task.checkDir) {
    for (const entry of await fs.readdir(task.checkDir, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const full = path.join(entry.parentPath, entry.name);
      const inside = path.posix.join(CHECK_DIR, path.relative(task.checkDir, full).split(path.sep).join("/"));
      await workspace.write(inside, await fs.readFile(full, "utf8"), { createParents: true });
    }
  }
  const check = await runInSandbox(input.sandbox, workspace.root, task.check);
  verdicts.push({
    name: "check",
    passed: check.passed,
    detail: `check failed: ${telling(check.output)}`,
  });
  const failed = verdicts.filter((v) => !v.passed);
  return {
    passed: failed.length === 0,
    reason: failed.length ? failed.map((v) => v.detail).join("; ") : "passed",
    verdicts: verdicts.map((v) => (v.passed ? { ...v, detail: "" } : v)),
  };
}
