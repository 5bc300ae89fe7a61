import { createHash } from "node:crypto";
import { z } from "zod";
import type { Workspace } from "@/server/workspace";
import { parseUntrustedYaml, YamlRefusal } from "./untrusted-yaml";

// Workflows: `.tandem/workflows/<name>.yaml` (or one the model writes inline in its call, as YAML or
// JSON), a named list of steps with inputs. A step is an
// agent prompt (run by a sub-agent, optionally a named agent), a shell command, or a parallel
// group of those. `{{ inputs.x }}` and `{{ steps.<id>.output }}` (and `.exit_code`) in a step
// are replaced by the inputs and by earlier steps' outputs; in shell commands the values are
// shell-quoted, so an input cannot inject a command.

export const WORKFLOWS_DIR = ".tandem/workflows";
const ID = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

const promptStep = z.strictObject({
  id: z.string().regex(ID, "step ids start with a letter and use letters, digits, _ and -"),
  prompt: z.string().min(1),
  agent: z.string().min(1).optional(),
  tools: z.array(z.string().min(1)).optional(),
  max_turns: z.number().int().min(1).max(100).optional(),
});
const runStep = z.strictObject({
  id: z.string().regex(ID, "step ids start with a letter and use letters, digits, _ and -"),
  run: z.string().min(1),
  timeout: z.number().int().min(1).max(3600).optional().describe("seconds"),
  continue_on_error: z.boolean().optional(),
});
const leafStep = z.union([promptStep, runStep]);
const parallelStep = z.strictObject({
  id: z.string().regex(ID).optional(),
  parallel: z.array(leafStep).min(1).max(10),
});

const workflowSchema = z.strictObject({
  description: z.string().optional(),
  inputs: z
    .record(
      z.string().regex(ID, "input names start with a letter and use letters, digits, _ and -"),
      z.union([
        z.strictObject({
          description: z.string().optional(),
          default: z.union([z.string(), z.number(), z.boolean()]).optional(),
          required: z.boolean().optional(),
        }),
        z.null(),
      ]),
    )
    .optional(),
  steps: z.array(z.union([parallelStep, leafStep])).min(1),
});

export type PromptStep = z.infer<typeof promptStep>;
export type RunStep = z.infer<typeof runStep>;
export type LeafStep = PromptStep | RunStep;
export type WorkflowStep = LeafStep | z.infer<typeof parallelStep>;
export type WorkflowInput = { name: string; description?: string; default?: string; required: boolean };
/** `digest`: sha256 of the file's text; an "approve always" binds to it, so an edited workflow asks again. */
export type WorkflowDefinition = {
  name: string;
  path: string;
  description: string;
  inputs: WorkflowInput[];
  steps: WorkflowStep[];
  digest: string;
};
export type WorkflowProblem = { path: string; message: string };

const isRun = (step: LeafStep): step is RunStep => "run" in step;

export async function loadWorkflows(
  workspace: Workspace,
): Promise<{ workflows: WorkflowDefinition[]; problems: WorkflowProblem[] }> {
  const workflows: WorkflowDefinition[] = [];
  const problems: WorkflowProblem[] = [];
  for (const entry of await workspace.list(WORKFLOWS_DIR).catch(() => [])) {
    const match = /^(.+)\.ya?ml$/.exec(entry.name);
    if (entry.type !== "file" || !match) continue;
    const file = await workspace.read(entry.path).catch(() => null);
    if (file?.kind !== "text") continue;
    const parsed = parseWorkflow(match[1]!, entry.path, file.content);
    if ("problem" in parsed) problems.push({ path: entry.path, message: parsed.problem });
    else workflows.push(parsed);
  }
  return { workflows, problems };
}

export function parseWorkflow(name: string, path: string, text: string): WorkflowDefinition | { problem: string } {
  let raw: unknown;
  try {
    raw = parseUntrustedYaml(text);
  } catch (error) {
    if (error instanceof YamlRefusal) return { problem: error.message };
    throw error;
  }
  const parsed = workflowSchema.safeParse(raw);
  if (!parsed.success)
    return { problem: parsed.error.issues.map((i) => `${i.path.join(".") || "(file)"}: ${i.message}`).join("; ") };
  const inputs = Object.entries(parsed.data.inputs ?? {}).map(
    ([inputName, spec]): WorkflowInput => ({
      name: inputName,
      description: spec?.description,
      default: spec?.default === undefined ? undefined : String(spec.default),
      required: spec?.required ?? spec?.default === undefined,
    }),
  );
  const seen = new Set<string>();
  for (const step of parsed.data.steps) {
    const group = "parallel" in step ? step.parallel : [step];
    for (const leaf of group) {
      const text = isRun(leaf) ? leaf.run : leaf.prompt;
      for (const ref of references(text)) {
        if (ref.kind === "inputs" && !inputs.some((i) => i.name === ref.name))
          return { problem: `step ${leaf.id}: {{ inputs.${ref.name} }} is not a declared input` };
        if (ref.kind === "steps" && !seen.has(ref.name))
          return { problem: `step ${leaf.id}: {{ steps.${ref.name} }} does not name an earlier step` };
      }
    }
    for (const leaf of group) {
      if (seen.has(leaf.id)) return { problem: `step id "${leaf.id}" is used twice` };
      seen.add(leaf.id);
    }
  }
  const digest = createHash("sha256").update(text).digest("hex");
  return { name, path, description: parsed.data.description ?? "", inputs, steps: parsed.data.steps, digest };
}

const TEMPLATE = /\{\{\s*(inputs|steps)\.([A-Za-z][A-Za-z0-9_-]*)(?:\.(output|exit_code))?\s*\}\}/g;

function references(text: string) {
  return [...text.matchAll(TEMPLATE)].map((m) => ({ kind: m[1] as "inputs" | "steps", name: m[2]! }));
}

/**
 * Every command the workflow's `run` steps will run, with the inputs filled in as they will be; a
 * reference to an earlier step's output stays as written (it is known only when the step ran).
 */
export function plannedCommands(workflow: WorkflowDefinition, inputs: Record<string, string>): string[] {
  return workflow.steps
    .flatMap((step) => ("parallel" in step ? step.parallel : [step]))
    .filter(isRun)
    .map((step) =>
      step.run.replace(TEMPLATE, (whole, kind: string, name: string) =>
        kind === "inputs" ? shellQuote(inputs[name] ?? "") : whole,
      ),
    );
}

export type StepOutcome = {
  id: string;
  kind: "prompt" | "run";
  ok: boolean;
  output: string;
  exitCode?: number | null;
  sessionId?: string;
};

export type WorkflowRunner = {
  prompt(
    step: PromptStep & { prompt: string },
    signal: AbortSignal,
  ): Promise<{ ok: boolean; output: string; sessionId?: string }>;
  shell(step: RunStep & { run: string }, signal: AbortSignal): Promise<{ exitCode: number | null; output: string }>;
  progress(text: string): void;
};

export class WorkflowInputError extends Error {}

/** The inputs with defaults applied; throws WorkflowInputError naming what is missing or unknown. */
export function resolveInputs(workflow: WorkflowDefinition, given: Record<string, unknown>): Record<string, string> {
  const unknown = Object.keys(given).filter((k) => !workflow.inputs.some((i) => i.name === k));
  if (unknown.length)
    throw new WorkflowInputError(
      `Unknown input${unknown.length > 1 ? "s" : ""} ${unknown.join(", ")}. Inputs of ${workflow.name}: ${workflow.inputs.map((i) => i.name).join(", ") || "(none)"}.`,
    );
  const values: Record<string, string> = {};
  for (const input of workflow.inputs) {
    const value = given[input.name];
    if (value !== undefined && value !== null)
      values[input.name] = typeof value === "string" ? value : JSON.stringify(value);
    else if (input.default !== undefined) values[input.name] = input.default;
    else if (input.required)
      throw new WorkflowInputError(
        `Input "${input.name}" is required${input.description ? ` (${input.description})` : ""}.`,
      );
    else values[input.name] = "";
  }
  return values;
}

/** Runs the steps in order (a parallel group's steps together); stops at the first failed step. */
export async function runWorkflow(
  workflow: WorkflowDefinition,
  inputs: Record<string, string>,
  runner: WorkflowRunner,
  signal: AbortSignal,
): Promise<{ ok: boolean; steps: StepOutcome[] }> {
  const done = new Map<string, StepOutcome>();
  const outcomes: StepOutcome[] = [];
  const fill = (text: string, quote: boolean) =>
    text.replace(TEMPLATE, (_, kind: string, name: string, field?: string) => {
      const value =
        kind === "inputs"
          ? (inputs[name] ?? "")
          : field === "exit_code"
            ? String(done.get(name)?.exitCode ?? "")
            : (done.get(name)?.output ?? "");
      return quote ? shellQuote(value) : value;
    });

  const runLeaf = async (step: LeafStep): Promise<StepOutcome> => {
    runner.progress(
      `▶ ${step.id}: ${isRun(step) ? `$ ${fill(step.run, true)}` : step.agent ? `agent ${step.agent}` : "agent prompt"}`,
    );
    let outcome: StepOutcome;
    if (isRun(step)) {
      const result = await runner.shell({ ...step, run: fill(step.run, true) }, signal);
      outcome = {
        id: step.id,
        kind: "run",
        ok: result.exitCode === 0 || step.continue_on_error === true,
        output: result.output.trimEnd(),
        exitCode: result.exitCode,
      };
    } else {
      const result = await runner.prompt({ ...step, prompt: fill(step.prompt, false) }, signal);
      outcome = {
        id: step.id,
        kind: "prompt",
        ok: result.ok,
        output: result.output.trim(),
        ...(result.sessionId ? { sessionId: result.sessionId } : {}),
      };
    }
    runner.progress(
      `${outcome.ok ? "✓" : "✗"} ${step.id}${outcome.exitCode !== undefined ? ` (exit ${outcome.exitCode})` : ""}`,
    );
    return outcome;
  };

  for (const step of workflow.steps) {
    if (signal.aborted) break;
    const group = "parallel" in step ? step.parallel : [step];
    if ("parallel" in step) runner.progress(`⇉ parallel: ${group.map((s) => s.id).join(", ")}`);
    const results = await Promise.all(group.map(runLeaf));
    for (const r of results) {
      done.set(r.id, r);
      outcomes.push(r);
    }
    if (results.some((r) => !r.ok)) return { ok: false, steps: outcomes };
  }
  return { ok: !signal.aborted, steps: outcomes };
}

export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
