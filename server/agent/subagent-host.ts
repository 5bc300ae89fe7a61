import type { AgentSession, AgentStore } from "@/server/agent/agent-store";
import type { SessionBus } from "@/server/bus/session-bus";
import type { Tool } from "@/server/tools/define-tool";
import { ToolFailure } from "@/server/tools/result";
import type { Workspace } from "@/server/workspace";
import type { EventLog } from "@/server/agent/events";
import { loadAgents } from "@/server/agent/definitions";
import { parseModelId } from "@/server/agent/providers";
import type { TurnEnd } from "@/server/agent/run";
import { defaultChildTools, sessionToolSet } from "@/server/agent/session-tools";
import type { SubagentHost } from "@/server/agent/subagents";

// What delegated sub-agents (subagents.ts) need from the runtime: the project's named agents,
// child sessions made from the parent's, a child's turn run to its end, and a background result
// delivered to the parent as a message.

export function createSubagentHost(deps: {
  store: AgentStore;
  log: EventLog;
  bus: SessionBus;
  baseTools?: readonly Tool[];
  ownTools: Tool[];
  openWorkspace(projectId: string, treeId?: string | null): Promise<Workspace>;
  mustFind(sessionId: string): Promise<AgentSession>;
  isRunning(sessionId: string): boolean;
  start(sessionId: string, userId: string, options?: { parentSignal?: AbortSignal }): Promise<TurnEnd | null>;
  waitForTurnEnd(sessionId: string): Promise<TurnEnd>;
}): SubagentHost {
  const { store, mustFind } = deps;
  return {
    log: deps.log,
    async agents(parentSessionId) {
      const parent = await mustFind(parentSessionId);
      return (await loadAgents(await deps.openWorkspace(parent.projectId, parent.treeId))).agents;
    },
    async createChild(parentSessionId, input) {
      const parent = await mustFind(parentSessionId);
      if (input.model) {
        try {
          parseModelId(input.model);
        } catch (error) {
          throw new ToolFailure(
            "INVALID_INPUT",
            `The agent's model "${input.model}" is not usable: ${(error as Error).message}`,
          );
        }
      }
      const all = sessionToolSet({ base: deps.baseTools, own: deps.ownTools, allowedTools: null });
      return store.sessions.create({
        projectId: parent.projectId,
        parentId: parent.id,
        title: input.prompt.replace(/\s+/g, " ").slice(0, 80),
        authorId: input.userId,
        model: input.model ?? parent.model,
        allowedTools: input.allowedTools === "default" ? defaultChildTools(all) : input.allowedTools,
        maxSteps: input.maxSteps,
        treeId: parent.treeId,
      });
    },
    async run(childId, userId, signal) {
      const ended = deps.waitForTurnEnd(childId);
      const first = await deps.start(childId, userId, { parentSignal: signal });
      return first && first.reason !== "waiting" ? first : ended;
    },
    async reportBack(parentSessionId, userId, text) {
      const parent = await store.sessions.find(parentSessionId);
      if (!parent) return;
      await deps.log.append(parent.id, "user_message", { text, authorName: "background agent" }, null);
      if (!deps.isRunning(parent.id) && parent.status !== "waiting_approval") void deps.start(parent.id, userId);
    },
    subscribe: (sessionId, listener) => deps.bus.subscribe(sessionId, listener),
    publish: (sessionId, item) => deps.bus.publish(sessionId, item),
  };
}
