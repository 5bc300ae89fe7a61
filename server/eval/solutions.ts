import fs from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { isDir } from "@/server/eval/tasks";

// Known answers to a task, to prove its grader: `solutions/<name>/` are correct (the first is
// `reference`), `wrong/<name>/` are not. Each is `files/` (written over the repository, as the
// agent would write them) and an optional `solution.json` (a question to ask first, shell
// commands to run, the final message). `replayStep` turns one into the replies of a scripted
// model, so the test suite runs it through the real runtime, tools and grader.

const solutionFile = z.object({
  /** Asked before anything else: with ask_user, or as a message that ends the turn (`askBy`). */
  ask: z.string().min(1).optional(),
  askBy: z.enum(["ask_user", "message"]).default("ask_user"),
  /** Run with the shell tool after the files are written, one call each. */
  commands: z.array(z.string().min(1)).default([]),
  /** The agent's final message. */
  message: z.string().min(1).default("Done."),
  /**
   * The replies, spelled out, for a solution the plan above cannot express (an edit that must be
   * redone after a person saved the file): each step is tool calls or the final text.
   */
  steps: z
    .array(
      z.union([
        z.object({ text: z.string().min(1) }),
        z.object({
          toolCalls: z
            .array(z.object({ name: z.string().min(1), arguments: z.record(z.string(), z.unknown()) }))
            .min(1),
        }),
      ]),
    )
    .optional(),
});

export type Solution = z.infer<typeof solutionFile> & {
  name: string;
  correct: boolean;
  /** Paths (relative to the repository) and contents to write. */
  files: { path: string; content: string }[];
};

export async function loadSolutions(taskDir: string): Promise<Solution[]> {
  const found: Solution[] = [];
  for (const [folder, correct] of [
    ["solutions", true],
    ["wrong", false],
  ] as const) {
    const dir = path.join(taskDir, folder);
    if (!(await isDir(dir))) continue;
    const names = (await fs.readdir(dir)).sort((a, b) =>
      a === "reference" ? -1 : b === "reference" ? 1 : a.localeCompare(b),
    );
    for (const name of names) {
      const base = path.join(dir, name);
      const json = await fs.readFile(path.join(base, "solution.json"), "utf8").catch(() => "{}");
      const parsed = solutionFile.safeParse(JSON.parse(json));
      if (!parsed.success) throw new Error(`${base}/solution.json: ${parsed.error.issues[0]?.message}`);
      const files = (await isDir(path.join(base, "files"))) ? await readTree(path.join(base, "files")) : [];
      found.push({ ...parsed.data, name: `${folder}/${name}`, correct, files });
    }
  }
  return found;
}

async function readTree(root: string): Promise<Solution["files"]> {
  const entries = await fs.readdir(root, { recursive: true, withFileTypes: true });
  const files = [];
  for (const entry of entries.filter((e) => e.isFile())) {
    const full = path.join(entry.parentPath, entry.name);
    files.push({ path: path.relative(root, full), content: await fs.readFile(full, "utf8") });
  }
  return files.sort((a, b) => a.path.localeCompare(b.path));
}

export type ReplayReply = {
  text?: string;
  toolCalls?: { id: string; name: string; arguments: Record<string, unknown> }[];
};

/**
 * The scripted model's reply to the request of step `step` (how many assistant messages the
 * conversation already has): ask, read the files it will overwrite, write them, run the
 * commands, then report. `exists` says which paths the repository already has.
 */
export function replayStep(solution: Solution, exists: (file: string) => boolean, step: number): ReplayReply {
  const call = (name: string, args: Record<string, unknown>, i: number) => ({
    id: `replay_${step}_${i}`,
    name,
    arguments: args,
  });
  if (solution.steps) {
    const spelled = solution.steps[Math.min(step, solution.steps.length - 1)]!;
    return "text" in spelled ? spelled : { toolCalls: spelled.toolCalls.map((c, i) => call(c.name, c.arguments, i)) };
  }
  const plan: ReplayReply[] = [];
  if (solution.ask)
    plan.push(
      solution.askBy === "message"
        ? { text: solution.ask }
        : { toolCalls: [call("ask_user", { question: solution.ask }, 0)] },
    );
  const overwritten = solution.files.filter((f) => exists(f.path));
  if (overwritten.length) plan.push({ toolCalls: overwritten.map((f, i) => call("read_file", { path: f.path }, i)) });
  if (solution.files.length)
    plan.push({
      toolCalls: solution.files.map((f, i) => call("write_file", { path: f.path, content: f.content }, i)),
    });
  for (const command of solution.commands) plan.push({ toolCalls: [call("shell", { command }, 0)] });
  plan.push({ text: solution.message });
  return plan[Math.min(step, plan.length - 1)]!;
}
