import { z } from "zod";
import { defineTool } from "./define-tool";
import { failure, ok } from "./result";

// delegate: runs up to MAX_TASKS tasks in parallel, each in a child session of this one (its own
// event log, visible in the UI) with its own tool allow-list and step cap. Children cannot
// delegate further. Cancelling this session cancels them.

export const MAX_TASKS = 5;
export const DEFAULT_CHILD_STEPS = 20;

export type DelegateTask = { prompt: string; tools?: string[]; max_turns?: number };
export type DelegateResult = { task: number; sessionId: string; status: string; ok: boolean; result: string };
export type Delegator = (input: {
  parentSessionId: string;
  toolCallId: string;
  userId: string;
  tasks: DelegateTask[];
  signal: AbortSignal;
}) => Promise<DelegateResult[]>;

export function delegateTool(delegator: Delegator) {
  return defineTool({
    name: "delegate",
    kind: "agent",
    description:
      `Hand independent tasks to sub-agents that work in parallel (at most ${MAX_TASKS} per call), each in its own session. ` +
      "Good for research that reads many files, or for separate parts of a change. Each task's prompt must be " +
      "self-contained: the sub-agent sees nothing of this conversation. `tools` lists the tools it may use (default: read " +
      `and search tools only); \`max_turns\` caps its steps (default ${DEFAULT_CHILD_STEPS}). You get one result per task.`,
    input: z.object({
      tasks: z
        .array(
          z.object({
            prompt: z.string().min(1).max(20_000),
            tools: z.array(z.string().min(1)).optional(),
            max_turns: z.number().int().min(1).max(100).optional(),
          }),
        )
        .min(1)
        .max(MAX_TASKS, `at most ${MAX_TASKS} tasks per call; split the work into several calls`),
    }),
    describe: (i) => `Delegate ${i.tasks.length} task${i.tasks.length === 1 ? "" : "s"}`,
    async execute(i, ctx) {
      if (!ctx.toolCallId) return failure("UNAVAILABLE", "delegate needs a tool call id.");
      const results = await delegator({ parentSessionId: ctx.sessionId, toolCallId: ctx.toolCallId, userId: ctx.userId, tasks: i.tasks, signal: ctx.signal });
      const text = results
        .map((r) => `## Task ${r.task + 1} (${r.status}, session ${r.sessionId})\n\n${r.result || "(no answer)"}`)
        .join("\n\n");
      return ok(JSON.stringify(results, null, 2), { kind: "markdown", text }, { sessions: results.map((r) => r.sessionId) });
    },
  });
}
