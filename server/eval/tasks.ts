import fs from "node:fs/promises";
import path from "node:path";
import { z } from "zod";

// An eval task is a folder: `task.json` (the request, the check command, what else success
// needs), `repo/` (the small repository the agent starts from) and, optionally, `check/` (files
// the check uses, copied in only after the agent has finished, so it cannot read or change them).

export const taskFileSchema = z.object({
  /** What a person asks the agent, as they would type it. */
  request: z.string().min(1),
  /** Runs with bash in the workspace, in the sandbox, after the agent is done; exit 0 is a pass. */
  check: z.string().min(1),
  /** The kind of skill the task measures, for the report. */
  kind: z.string().min(1).default("general"),
  /** The right move is to ask: a run passes only if the agent asked a question (ask_user) too. */
  mustAsk: z.boolean().default(false),
  /** What the simulated person answers when asked; without it they decline to decide. */
  answer: z.string().optional(),
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
    const repoDir = path.join(taskDir, "repo");
    if (!(await isDir(repoDir)))
      throw new Error(`${taskDir}: a task needs a repo/ folder (the repository the agent starts from).`);
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

async function isDir(p: string) {
  return (await fs.stat(p).catch(() => null))?.isDirectory() ?? false;
}
