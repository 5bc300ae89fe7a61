import type { Db } from "@/server/db/client";
import type { AgentSessionRow } from "@/server/db/repositories/sessions";
import type { DelegateResult, DelegateTask } from "@/server/tools/delegate";
import { DEFAULT_CHILD_STEPS } from "@/server/tools/delegate";
import type { EventLog } from "@/server/agent/events";
import type { TurnEnd } from "@/server/agent/run";

// Sub-agents: each delegated task runs as a child session (own log, linked by parentId) with
// its own tool allow-list and step cap, all tasks in parallel. The parent's log records when
// each starts and finishes; the child's answer is the task's result. The parent's abort signal
// reaches every child, so cancelling the parent cancels them.

export type SubagentHost = {
  db: Db;
  log: EventLog;
  createChild(parentSessionId: string, input: { prompt: string; userId: string; allowedTools: string[] | "default"; maxSteps: number }): Promise<AgentSessionRow>;
  run(childId: string, userId: string, signal: AbortSignal): Promise<TurnEnd>;
};

export async function runSubagents(
  host: SubagentHost,
  input: { parentSessionId: string; toolCallId: string; userId: string; tasks: DelegateTask[]; signal: AbortSignal },
): Promise<DelegateResult[]> {
  return Promise.all(
    input.tasks.map(async (task, index): Promise<DelegateResult> => {
      const child = await host.createChild(input.parentSessionId, {
        prompt: task.prompt,
        userId: input.userId,
        allowedTools: task.tools ?? "default",
        maxSteps: task.max_turns ?? DEFAULT_CHILD_STEPS,
      });
      await host.log.append(input.parentSessionId, "subagent_started", {
        toolCallId: input.toolCallId,
        childSessionId: child.id,
        index,
        prompt: task.prompt,
        tools: child.allowedTools ?? [],
      });
      await host.log.append(child.id, "user_message", { text: task.prompt, authorName: "delegating agent" }, null);
      let end: TurnEnd;
      try {
        end = await host.run(child.id, input.userId, input.signal);
      } catch (error) {
        end = { reason: "error", text: `The sub-agent failed: ${(error as Error).message}` };
      }
      const ok = end.reason === "completed";
      const result = end.text || (ok ? "" : `The sub-agent stopped (${end.reason}) without an answer.`);
      await host.log.append(input.parentSessionId, "subagent_finished", { toolCallId: input.toolCallId, childSessionId: child.id, index, ok, result });
      return { task: index, sessionId: child.id, status: end.reason, ok, result };
    }),
  );
}
