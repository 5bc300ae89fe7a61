import { z } from "zod";
import type { Delegator } from "./delegate";
import { defineTool } from "./define-tool";
import { failure, ok } from "./result";
import { YAML_MAX_CHARS } from "./untrusted-yaml";
import {
  parseWorkflow,
  plannedCommands,
  WORKFLOWS_DIR,
  resolveInputs,
  runWorkflow,
  WorkflowInputError,
  type WorkflowDefinition,
  type WorkflowProblem,
} from "./workflow-engine";

// workflow: runs a team-defined workflow (.tandem/workflows/<name>.yaml), or one the model writes
// inline in the call (YAML or JSON, under the same size and nesting guard): agent prompts as
// sub-agent sessions of this one, shell commands in this session's sandboxed shell, parallel
// groups together. Each step's start and end streams into the session as progress; prompt
// steps also appear as sub-agent sessions. A workflow with shell steps asks before it runs,
// as a shell command would: its plan lists every command (the approval card shows them, the deny
// rules and the destructive-command guard judge each) and the digest of its file, so "approve
// always" holds for this content only, and a workflow edited after it was approved does not run
// (an inline one's digest is of its definition, which is the call's own input).

const STEP_TIMEOUT_S = 600;

export type WorkflowSource = () => Promise<{ workflows: WorkflowDefinition[]; problems: WorkflowProblem[] }>;

/** The name an inline workflow runs under (its steps' sessions and its result say so). */
const INLINE = "inline";

// Made once: the tool is made anew for each turn, its schema (and the model's JSON schema of it) is not.
const WORKFLOW_INPUT = z
  .object({
    workflow: z.string().min(1).max(100).optional().describe("A project workflow's name."),
    definition: z
      .string()
      .min(1)
      .max(
        YAML_MAX_CHARS,
        `an inline workflow is at most ${YAML_MAX_CHARS} characters; save a longer one as ${WORKFLOWS_DIR}/<name>.yaml`,
      )
      .optional()
      .describe(
        "A workflow written here instead, as YAML or JSON text in the same shape as a workflow file: " +
          '{"description"?, "inputs"?: {"name": {"default"?, "required"?}}, "steps": [{"id", "prompt"} | {"id", "run"} | {"parallel": [...]}]}.',
      ),
    inputs: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
  })
  .superRefine((v, ctx) => {
    if ((v.workflow === undefined) === (v.definition === undefined))
      ctx.addIssue({
        code: "custom",
        path: ["workflow"],
        message: "give either `workflow` (a project workflow's name) or `definition` (one written inline), not both",
      });
  });
type WorkflowCall = z.infer<typeof WORKFLOW_INPUT>;

export function workflowTool(source: WorkflowSource, delegator: Delegator) {
  const find = async (
    call: WorkflowCall,
  ): Promise<
    { workflow: WorkflowDefinition } | { workflow?: undefined; code: "INVALID_INPUT" | "NOT_FOUND"; problem: string }
  > => {
    if (call.definition !== undefined) {
      const parsed = parseWorkflow(INLINE, "(inline)", call.definition);
      return "problem" in parsed
        ? {
            code: "INVALID_INPUT",
            problem: `The inline workflow is invalid: ${parsed.problem}. Fix the definition and call again.`,
          }
        : { workflow: parsed };
    }
    const name = call.workflow!;
    const loaded = await source();
    const workflow = loaded.workflows.find((w) => w.name === name);
    if (workflow) return { workflow };
    const invalid = loaded.problems.find((p) => p.path.endsWith(`/${name}.yaml`) || p.path.endsWith(`/${name}.yml`));
    if (invalid)
      return {
        code: "INVALID_INPUT",
        problem: `Workflow "${name}" is invalid: ${invalid.message}. Fix ${invalid.path}.`,
      };
    return {
      code: "NOT_FOUND",
      problem: `No workflow named "${name}". Available: ${loaded.workflows.map((w) => w.name).join(", ") || "(none)"}.`,
    };
  };
  return defineTool({
    name: "workflow",
    onDemand: "always",
    kind: "agent",
    mainAgentOnly: true,
    description:
      "Run one of the project's workflows (.tandem/workflows/<name>.yaml; list them with catalog {category: workflows}), " +
      "or one you write inline in `definition` (YAML or JSON): " +
      "a fixed series of agent prompts and shell commands, some in parallel, each step able to use earlier steps' outputs " +
      "({{ inputs.x }}, {{ steps.<id>.output }}). `inputs` gives the workflow's named inputs. You get every step's output.",
    input: WORKFLOW_INPUT,
    describe: (i) => (i.workflow ? `Run workflow ${i.workflow}` : "Run an inline workflow"),
    async plan(i) {
      const { workflow } = await find(i);
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
      const { workflow } = await find(i);
      return (
        !workflow || workflow.steps.some((s) => ("parallel" in s ? s.parallel.some((p) => "run" in p) : "run" in s))
      );
    },
    async execute(i, ctx) {
      const found = await find(i);
      if (!found.workflow) return failure(found.code, found.problem);
      const { workflow } = found;
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
