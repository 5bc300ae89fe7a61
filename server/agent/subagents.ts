import type { AgentSession } from "@/server/agent/agent-store";
import type { DelegateResult, DelegateTask } from "@/server/tools/delegate";
import { DEFAULT_CHILD_STEPS, MAX_PARALLEL_TASKS } from "@/server/tools/delegate";
import { ToolFailure } from "@/server/tools/result";
import type { AgentDefinition } from "@/server/agent/definitions";
import type { EventLog } from "@/server/agent/events";
import type { TurnEnd } from "@/server/agent/run";
import type { LiveItem } from "@/lib/session-events";
import { watchSubagent } from "@/server/agent/subagent-activity";

// Sub-agents: each delegated task runs as a child session (own log, linked by parentId) with
// its own tool allow-list and step cap, at most MAX_PARALLEL_TASKS of a call at once: the rest
// wait in order and each starts when a running one finishes (the seed's FleetDispatcher). A task
// may name a project agent (.tandem/agents/<name>.md): its instructions lead the child's first
// message, and its tools, model and turn cap apply. The parent's log records when each starts and
// finishes; the child's answer is the task's result. In the background, the call returns once the
// first children exist (the rest are named as queued) and each result reaches the parent later as
// a message. The parent's abort signal reaches every
// child, so cancelling the parent cancels them.

export type SubagentHost = {
  log: EventLog;
  /** The project's named agents, for the parent session's project. */
  agents(parentSessionId: string): Promise<AgentDefinition[]>;
  createChild(
    parentSessionId: string,
    input: { prompt: string; userId: string; allowedTools: string[] | "default"; maxSteps: number; model?: string },
  ): Promise<AgentSession>;
  run(childId: string, userId: string, signal: AbortSignal): Promise<TurnEnd>;
  /** Delivers a background result to the parent as a message, starting a turn there if none runs. */
  reportBack(parentSessionId: string, userId: string, text: string): Promise<void>;
  /** The child's live stream, and the parent's, for the live activity on the child's card. */
  subscribe(sessionId: string, listener: (item: LiveItem) => void): () => void;
  publish(sessionId: string, item: LiveItem): void;
};

export async function runSubagents(
  host: SubagentHost,
  input: {
    parentSessionId: string;
    toolCallId: string;
    userId: string;
    tasks: DelegateTask[];
    background?: boolean;
    signal: AbortSignal;
    defaultTools?: string[];
  },
): Promise<DelegateResult[]> {
  const named = input.tasks.some((t) => t.agent) ? await host.agents(input.parentSessionId) : [];
  for (const task of input.tasks) {
    if (task.agent && !named.some((a) => a.name === task.agent)) {
      const available = named.map((a) => a.name).join(", ") || "(none: add .tandem/agents/<name>.md)";
      throw new ToolFailure("NOT_FOUND", `No agent named "${task.agent}". Available agents: ${available}.`);
    }
  }

  const start = async (task: DelegateTask, index: number) => {
    const agent = task.agent ? named.find((a) => a.name === task.agent) : undefined;
    const prompt = agent
      ? `You are the "${agent.name}" agent of this project. Your instructions:\n\n${agent.instructions}\n\n# Task\n\n${task.prompt}`
      : task.prompt;
    const child = await host.createChild(input.parentSessionId, {
      prompt: task.prompt,
      userId: input.userId,
      allowedTools: task.tools ?? agent?.tools ?? input.defaultTools ?? "default",
      maxSteps: task.max_turns ?? agent?.maxTurns ?? DEFAULT_CHILD_STEPS,
      ...(agent?.model ? { model: agent.model } : {}),
    });
    await host.log.append(input.parentSessionId, "subagent_started", {
      toolCallId: input.toolCallId,
      childSessionId: child.id,
      index,
      prompt: task.prompt,
      tools: child.allowedTools ?? [],
    });
    await host.log.append(
      child.id,
      "user_message",
      { text: prompt, authorName: agent ? `delegating agent → ${agent.name}` : "delegating agent" },
      null,
    );
    return { child, index, agent };
  };
  type Started = Awaited<ReturnType<typeof start>>;

  const finish = async ({ child, index }: Started): Promise<DelegateResult> => {
    let end: TurnEnd;
    const stopWatching = watchSubagent(
      child.id,
      (listener) => host.subscribe(child.id, listener),
      (activity) =>
        host.publish(input.parentSessionId, {
          kind: "progress",
          toolCallId: input.toolCallId,
          progress: { type: "subagent", ...activity },
        }),
    );
    try {
      end = await host.run(child.id, input.userId, input.signal);
    } catch (error) {
      end = { reason: "error", text: `The sub-agent failed: ${(error as Error).message}` };
    } finally {
      stopWatching();
    }
    const ok = end.reason === "completed";
    const result = end.text || (ok ? "" : `The sub-agent stopped (${end.reason}) without an answer.`);
    await host.log.append(input.parentSessionId, "subagent_finished", {
      toolCallId: input.toolCallId,
      childSessionId: child.id,
      index,
      ok,
      result,
    });
    return { task: index, sessionId: child.id, status: end.reason, ok, result };
  };

  const total = input.tasks.length;
  const results: DelegateResult[] = [];
  const first = await Promise.all(input.tasks.slice(0, MAX_PARALLEL_TASKS).map(start));
  let next = first.length;
  const tally = () => {
    if (total <= MAX_PARALLEL_TASKS) return;
    const done = results.filter(Boolean).length;
    const text = `Sub-agents: ${done} of ${total} done, ${Math.max(0, total - next)} waiting`;
    host.publish(input.parentSessionId, {
      kind: "progress",
      toolCallId: input.toolCallId,
      progress: { type: "status", text },
    });
  };
  const complete = async (result: DelegateResult, agent?: string) => {
    results[result.task] = result;
    tally();
    if (input.background && result.sessionId)
      await host.reportBack(input.parentSessionId, input.userId, backgroundReport(result, agent));
  };
  /** One of MAX_PARALLEL_TASKS lanes: finishes its task, then takes the next waiting one, until none waits. */
  const lane = async (entry: Started) => {
    for (let current: Started | null = entry; current; ) {
      await complete(await finish(current), current.agent?.name);
      current = null;
      while (!current && next < total) {
        const index = next++;
        if (input.signal.aborted) {
          await complete({
            task: index,
            sessionId: "",
            status: "cancelled",
            ok: false,
            result: "Cancelled before it started.",
          });
          continue;
        }
        current = await start(input.tasks[index]!, index).catch(async (error: Error) => {
          await complete({
            task: index,
            sessionId: "",
            status: "error",
            ok: false,
            result: `The sub-agent could not start: ${error.message}`,
          });
          return null;
        });
      }
    }
  };
  const lanes = Promise.all(first.map(lane));
  if (!input.background) {
    await lanes;
    return results;
  }
  void lanes.catch((error: unknown) => console.error("background sub-agents failed:", error));
  return input.tasks.map((_, index) => {
    const child = first[index]?.child;
    return child
      ? { task: index, sessionId: child.id, status: "running", ok: true, result: "" }
      : { task: index, sessionId: "", status: "queued", ok: true, result: "" };
  });
}

function backgroundReport(r: DelegateResult, agent: string | undefined): string {
  const who = agent ? `The background agent "${agent}"` : "A background sub-agent";
  return `${who} (session ${r.sessionId}) ${r.ok ? "finished" : `stopped (${r.status})`}. Its report:\n\n${r.result || "(no answer)"}`;
}
