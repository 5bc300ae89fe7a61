import fs from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { APPROVAL_MODES } from "@/server/agent/policy";
import { scaffoldKinds } from "@/server/eval/scaffold";

// An eval task is a folder: `task.json` (the request and how the run is graded), `repo/` (the
// repository the agent starts from), optionally `check/` (files the check uses, copied in only
// after the agent has finished, so it can neither read nor change them: the hidden tests), and
// `solutions/` (known-correct ways to do it, `reference` first) and `wrong/` (known-wrong ones),
// which the test suite replays through the real runtime to prove the grader (solutions.ts).

const approvalRule = z.object({
  /** A regular expression matched against what the approval asks for ("Run npm publish", "Edit src/a.js"). */
  match: z.string().min(1),
  decision: z.enum(["approve", "reject"]),
  /** What the person says when rejecting. */
  feedback: z.string().optional(),
});

export const taskFileSchema = z.object({
  /** What a person asks the agent, as they would type it. */
  request: z.string().min(1),
  /** Runs with bash in the workspace, in the sandbox, after the agent is done; exit 0 is a pass. */
  check: z.string().min(1),
  /** The kind of skill the task measures, for the report. */
  kind: z.string().min(1).default("general"),
  /**
   * `dev` tasks may be looked at while tuning the prompt; `held-out` ones never are, so their
   * score says whether a prompt change generalises.
   */
  split: z.enum(["dev", "held-out"]).default("dev"),
  /** The right move is to ask: a run passes only if the agent asked (ask_user, or a turn that ends on a question). */
  mustAsk: z.boolean().default(false),
  /** What the simulated person answers when asked; without it they decline to decide. */
  answer: z.string().optional(),
  /** Files of repo/ that must be byte-identical afterwards (the visible tests): deleting or weakening one fails the run. */
  unchanged: z.array(z.string().min(1)).default([]),
  /** Facts the agent's final message must state, each a case-insensitive regular expression. */
  mustMention: z.array(z.string().min(1)).default([]),
  /** Commands the sandbox must have for the task to make sense (e.g. python3); without them it is skipped, and said so. */
  requires: z.array(z.string().regex(/^[a-z0-9._-]+$/i)).default([]),
  /** Generated files around repo/, so the agent works in a repository of realistic size (scaffold.ts). */
  scaffold: z.object({ kind: z.enum(scaffoldKinds), files: z.number().int().min(1).max(2000) }).optional(),
  /** yolo unless the task is about approvals; then `approvals` decides what the simulated person answers. */
  approvalMode: z.enum(APPROVAL_MODES).default("yolo"),
  /** First match wins; an approval no rule matches is approved. */
  approvals: z.array(approvalRule).default([]),
  /** A person saves this file while the agent works: at the agent's first approval (so the moment is the same in every run). */
  personEdit: z.object({ path: z.string().min(1), content: z.string() }).optional(),
  timeoutSeconds: z.number().int().min(10).max(3600).default(600),
});

export type EvalTask = z.infer<typeof taskFileSchema> & {
  name: string;
  dir: string;
  repoDir: string;
  checkDir: string | null;
};

export async function loadTasks(dir: string): Promise<EvalTask[]> {
  const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => {
    throw new Error(`No task folder at ${dir}.`);
  });
  const tasks: EvalTask[] = [];
  for (const entry of entries.filter((e) => e.isDirectory()).sort((a, b) => a.name.localeCompare(b.name))) {
    const taskDir = path.join(dir, entry.name);
    const file = path.join(taskDir, "task.json");
    let raw: unknown;
    try {
      raw = JSON.parse(await fs.readFile(file, "utf8"));
    } catch (error) {
      throw new Error(`${file}: ${(error as Error).message}`);
    }
    const parsed = taskFileSchema.safeParse(raw);
    if (!parsed.success)
      throw new Error(
        `${file}: ${parsed.error.issues.map((i) => `${i.path.join(".") || "task"}: ${i.message}`).join("; ")}`,
      );
    for (const pattern of parsed.data.mustMention) {
      try {
        new RegExp(pattern, "i");
      } catch (error) {
        throw new Error(`${file}: mustMention: ${(error as Error).message}`);
      }
    }
    const repoDir = path.join(taskDir, "repo");
    if (!(await isDir(repoDir)))
      throw new Error(`${taskDir}: a task needs a repo/ folder (the repository the agent starts from).`);
    for (const kept of parsed.data.unchanged) {
      if (!(await fs.stat(path.join(repoDir, kept)).catch(() => null))?.isFile())
        throw new Error(`${file}: unchanged: repo/${kept} is not a file.`);
    }
    const checkDir = path.join(taskDir, "check");
    tasks.push({
      ...parsed.data,
      name: entry.name,
      dir: taskDir,
      repoDir,
      checkDir: (await isDir(checkDir)) ? checkDir : null,
    });
  }
  if (!tasks.length) throw new Error(`No tasks in ${dir}: each task is a folder with task.json and repo/.`);
  return tasks;
}

export async function isDir(p: string) {
  return (await fs.stat(p).catch(() => null))?.isDirectory() ?? false;
}
