import { z } from "zod";
import { defineTool } from "./define-tool";
import { failure, ok, okJson } from "./result";

// delegate: hands work to sub-agents, each in a child session of this one (its own event log,
// visible in the UI) with its own tool allow-list and step cap. Two forms: one task
// {agent?, task, context?, tools?, background?, max_turns?} — `agent` names a project agent from
// .tandem/agents, whose instructions, tools, model and turn cap apply — or a batch {tasks: [...]}
// of up to MAX_TASKS, MAX_PARALLEL_TASKS of them running at once and the rest waiting their turn. A background delegation returns at once and reports into
// this session when it is done. Children cannot delegate further; cancelling this session
// cancels them.

/** How many sub-agents of one call run at once; a larger batch waits its turn (server/agent/subagents.ts). */
export const MAX_PARALLEL_TASKS = 5;
export const MAX_TASKS = 50;
export const DEFAULT_CHILD_STEPS = 20;

export type DelegateTask = { prompt: string; agent?: string; tools?: string[]; max_turns?: number };
export type DelegateResult = { task: number; sessionId: string; status: string; ok: boolean; result: string };
export type Delegator = (input: {
  parentSessionId: string;
  toolCallId: string;
  userId: string;
  tasks: DelegateTask[];
  background?: boolean;
  signal: AbortSignal;
  /** A task's tools when it names none (nor its agent): the delegating session's read and search tools. */
  defaultTools?: string[];
}) => Promise<DelegateResult[]>;

const batchTask = z.object({
  prompt: z.string().min(1).max(20_000),
  agent: z.string().min(1).max(64).optional(),
  tools: z.array(z.string().min(1)).optional(),
  max_turns: z.number().int().min(1).max(100).optional(),
});

const input = z
  .object({
    agent: z
      .string()
      .min(1)
      .max(64)
      .optional()
      .describe("A project agent's name (see catalog {category: agents}); default: a general sub-agent."),
    task: z
      .string()
      .min(1)
      .max(20_000)
      .optional()
      .describe("What the sub-agent should do: self-contained, it sees nothing of this conversation."),
    context: z.string().max(50_000).optional().describe("Facts the sub-agent needs: paths, findings, constraints."),
    tools: z
      .array(z.string().min(1))
      .optional()
      .describe("Tool names the sub-agent may use; default: the read and search tools."),
    background: z
      .boolean()
      .optional()
      .describe("Return at once; the result arrives in this session as a message when the sub-agent is done."),
    max_turns: z.number().int().min(1).max(100).optional(),
    tasks: z
      .array(batchTask)
      .min(1)
      .max(MAX_TASKS, `at most ${MAX_TASKS} tasks per call; split the work into several calls`)
      .optional()
      .describe(
        `Batch form: several independent tasks, ${MAX_PARALLEL_TASKS} running at once and the rest queued, one result each.`,
      ),
  })
  .superRefine((v, ctx) => {
    if ((v.task === undefined) === (v.tasks === undefined)) {
      ctx.addIssue({
        code: "custom",
        path: ["task"],
        message: "give either `task` (one sub-agent) or `tasks` (a batch), not both or neither",
      });
    }
  });

export function delegateTool(delegator: Delegator) {
  return defineTool({
    name: "delegate",
    onDemand: "small-window",
    kind: "agent",
    mainAgentOnly: true,
    description:
      "Hand work to sub-agents, each in its own session. One task: {agent?, task, context?, tools?, background?, max_turns?}; " +
      "`agent` picks a project agent (see catalog) with its own instructions and tools; `background: true` returns at once and " +
      `the result comes back as a message later. Several independent tasks: {tasks: [{prompt, agent?, tools?, max_turns?}]} (at most ${MAX_TASKS}; ${MAX_PARALLEL_TASKS} run at once, the rest wait their turn). ` +
      "Good for research that reads many files. Sub-agents get the read and search tools unless you list `tools` " +
      '(e.g. ["read_file", "grep", "edit", "shell"] for a separate part of a change: its edits ask for approval as yours do). ' +
      `Each task must be self-contained: the sub-agent sees nothing of this conversation and cannot ask people. Default cap ${DEFAULT_CHILD_STEPS} steps. ` +
      "Each result is the sub-agent's final report.",
    input,
    describe: (i) =>
      i.tasks
        ? `Delegate ${i.tasks.length} task${i.tasks.length === 1 ? "" : "s"}`
        : `Delegate${i.agent ? ` to ${i.agent}` : ""}${i.background ? " (background)" : ""}: ${i.task!.slice(0, 60)}`,
    async execute(i, ctx) {
      if (!ctx.toolCallId) return failure("UNAVAILABLE", "delegate needs a tool call id.");
      const tasks: DelegateTask[] = i.tasks ?? [
        {
          prompt: i.context ? `${i.task}\n\n# Context\n\n${i.context}` : i.task!,
          ...(i.agent ? { agent: i.agent } : {}),
          ...(i.tools ? { tools: i.tools } : {}),
          ...(i.max_turns ? { max_turns: i.max_turns } : {}),
        },
      ];
      const results = await delegator({
        parentSessionId: ctx.sessionId,
        toolCallId: ctx.toolCallId,
        userId: ctx.userId,
        tasks,
        background: i.background,
        signal: ctx.signal,
        ...(ctx.childTools ? { defaultTools: ctx.childTools() } : {}),
      });
      if (i.background) {
        const text = results
          .map((r) =>
            r.sessionId
              ? `Started in the background as session ${r.sessionId}. Its result will arrive in this session as a message.`
              : `Task ${r.task + 1} is queued: it starts when a running sub-agent finishes, and its result arrives as a message.`,
          )
          .join("\n");
        return ok(
          text,
          { kind: "text", text },
          {
            sessions: results.map((r) => r.sessionId).filter(Boolean),
            queued: results.filter((r) => !r.sessionId).length,
          },
        );
      }
      // Reports that are JSON (a sub-agent asked for structured output) stay JSON, for the model and
      // the card; other reports are read as text, as people read them: JSON would escape every quote.
      const structured = results.map((r) => parseJsonReport(r.result));
      if (structured.every((value) => value !== undefined)) {
        const reports = results.map((r, n) => ({
          task: r.task + 1,
          status: r.status,
          ok: r.ok,
          session: r.sessionId,
          result: structured[n],
        }));
        return okJson(i.tasks ? reports : reports[0], {
          sessions: results.map((r) => r.sessionId),
          results: results.map((r) => ({ task: r.task, status: r.status, ok: r.ok })),
        });
      }
      const done = results.filter((r) => r.ok).length;
      const head =
        results.length > MAX_PARALLEL_TASKS
          ? `${results.length} tasks, ${MAX_PARALLEL_TASKS} at a time: ${done} done, ${results.length - done} stopped.\n\n`
          : "";
      const text =
        head +
        results
          .map(
            (r) =>
              `## Task ${r.task + 1}: ${r.ok ? "done" : `stopped (${r.status})`}, ${r.sessionId ? `session ${r.sessionId}` : "not started"}\n\n${r.result || "(no answer)"}`,
          )
          .join("\n\n");
      return ok(
        text,
        { kind: "markdown", text },
        {
          sessions: results.map((r) => r.sessionId),
          results: results.map((r) => ({ task: r.task, status: r.status, ok: r.ok })),
        },
      );
    },
  });
}

/** A report that is a JSON object or array (bare or in one fenced block); undefined otherwise. */
function parseJsonReport(report: string): unknown {
  const body = report
    .trim()
    .replace(/^```(?:json)?\n([\s\S]*)\n```$/, "$1")
    .trim();
  if (!/^[[{]/.test(body)) return undefined;
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return undefined;
  }
}
