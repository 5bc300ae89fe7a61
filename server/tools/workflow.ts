import { z } from "zod";
import type { Delegator } from "./delegate";
import { defineTool } from "./define-tool";
import { failure, ok } from "./result";
import {
  plannedCommands,
  resolveInputs,
  runWorkflow,
  WorkflowInputError,
  type WorkflowDefinition,
  type WorkflowProblem,
} from "./workflow-engine";

// workflow: runs a team-defined workflow (.tandem/workflows/<name>.yaml): agent prompts as
// sub-agent sessions of this one, shell commands in this session's sandboxed shell, parallel
// groups together. Each step's start and end streams into the session as progress; prompt
// steps also appear as sub-agent sessions. A workflow with shell steps asks before it runs,
// as a shell command would: its plan lists every command (the approval card shows them, the deny
// rules and the destructive-command guard judge each) and the digest of its file, so "approve
// always" holds for this content only, and a workflow edited after it was approved does not run.

const STEP_TIMEOUT_S = 600;

export type WorkflowSource = () => Promise<{ workflows: WorkflowDefinition[]; problems: WorkflowProblem[] }>;

// Made once: the tool is made anew for each turn, its schema (and the model's JSON schema of it) is not.
const WORKFLOW_INPUT = z.object({
  workflow: z.string().min(1).max(100),
  inputs: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
});

export function workflowTool(source: WorkflowSource, delegator: Delegator) {
  const find = async (name: string) => {
    const loaded = await source();
    return { workflow: loaded.workflows.find((w) => w.name === name), loaded };
  };
  return defineTool({
    name: "workflow",
    kind: "agent",
    mainAgentOnly: true,
    description:
      "Run one of the project's workflows (.tandem/workflows/<name>.yaml; list them with catalog {category: workflows}): " +
      "a fixed series of agent prompts and shell commands, some in parallel, each step able to use earlier steps' outputs. " +
      "`inputs` gives the workflow's named inputs. You get every step's output.",
    input: WORKFLOW_INPUT,
    describe: (i) => `Run workflow ${i.workflow}`,
    async plan(i) {
      const { workflow } = await find(i.workflow);
      if (!workflow) return null;
      let inputs: Record<string, string>;
      try {
        inputs = resolveInputs(workflow, i.inputs ?? {});
      } catch (error) {
        if (error instanceof WorkflowInputError) return null;
        throw error;
      }
      return { commands: plannedCommands(workflow, inputs), digest: workflow.digest };
    },
    needsApproval: async (i) => {
      const { workflow } = await find(i.workflow);
      return (
        !workflow || workflow.steps.some((s) => ("parallel" in s ? s.parallel.some((p) => "run" in p) : "run" in s))
      );
    },
    async execute(i, ctx) {
      const { workflow, loaded } = await find(i.workflow);
      if (!workflow) {
        const problem = loaded.problems.find(
          (p) => p.path.endsWith(`/${i.workflow}.yaml`) || p.path.endsWith(`/${i.workflow}.yml`),
        );
        if (problem)
          return failure(
            "INVALID_INPUT",
            `Workflow "${i.workflow}" is invalid: ${problem.message}. Fix ${problem.path}.`,
          );
        return failure(
          "NOT_FOUND",
          `No workflow named "${i.workflow}". Available: ${loaded.workflows.map((w) => w.name).join(", ") || "(none)"}.`,
        );
      }
      let inputs: Record<string, string>;
      try {
        inputs = resolveInputs(workflow, i.inputs ?? {});
      } catch (error) {
        if (error instanceof WorkflowInputError) return failure("INVALID_INPUT", error.message);
        throw error;
      }
      if (ctx.grant && ctx.grant.plan?.digest !== workflow.digest) {
        return failure(
          "INVALID_INPUT",
          `Workflow "${workflow.name}" changed after it was vetted (${workflow.path}), so it did not run. Call it again to have the new version approved.`,
        );
      }
      const toolCallId = ctx.toolCallId ?? "workflow";
      const run = await runWorkflow(
        workflow,
        inputs,
        {
          progress: (text) => ctx.emit({ type: "status", text }),
          async prompt(step, signal) {
            const [result] = await delegator({
              parentSessionId: ctx.sessionId,
              toolCallId,
              userId: ctx.userId,
              tasks: [
                {
                  prompt: step.prompt,
                  ...(step.agent ? { agent: step.agent } : {}),
                  ...(step.tools ? { tools: step.tools } : {}),
                  ...(step.max_turns ? { max_turns: step.max_turns } : {}),
                },
              ],
              signal,
            });
            return { ok: result!.ok, output: result!.result, sessionId: result!.sessionId };
          },
          async shell(step, signal) {
            const result = await ctx.shell.run(step.run, {
              timeoutMs: (step.timeout ?? STEP_TIMEOUT_S) * 1000,
              signal,
              onOutput: (stream, text) => ctx.emit({ type: "output", stream, text }),
            });
            return { exitCode: result.exitCode, output: [result.stdout, result.stderr].filter(Boolean).join("\n") };
          },
        },
        ctx.signal,
      );
      const body = run.steps
        .map(
          (s) =>
            `## ${s.id} (${s.kind}${s.exitCode !== undefined ? `, exit ${s.exitCode}` : ""}${s.sessionId ? `, session ${s.sessionId}` : ""}) ${s.ok ? "ok" : "FAILED"}\n\n${s.output || "(no output)"}`,
        )
        .join("\n\n");
      const head = run.ok
        ? `Workflow ${workflow.name} finished: ${run.steps.length} steps.`
        : `Workflow ${workflow.name} stopped at a failed step.`;
      const text = `${head}\n\n${body}`;
      return {
        ...ok(text, { kind: "markdown", text }, { steps: run.steps.map((s) => ({ id: s.id, ok: s.ok })) }),
        ...(run.ok ? {} : { error: { code: "INTERNAL" as const, message: head } }),
      };
    },
  });
}
