import type { AgentExtensions } from "@/server/agent/extensions";
import type { AgentStore } from "@/server/agent/agent-store";
import type { Tool } from "@/server/tools/define-tool";
import { askUserTool } from "@/server/tools/ask-user";
import { delegateTool, type Delegator } from "@/server/tools/delegate";
import { memoryTool } from "@/server/tools/memory";
import { assertFactTool, recordEpisodeTool } from "@/server/tools/memory-records";
import { rememberPreferenceTool } from "@/server/tools/remember-preference";
import { noteTool } from "@/server/tools/note";
import { sessionSearchTool } from "@/server/tools/session-search";
import { todoWriteTool } from "@/server/tools/todo-write";

// The runtime's own tools, bound to the agent's store. The tools themselves only see small store
// interfaces, never the database.

export function createOwnTools(store: AgentStore, delegator: Delegator, extensions?: AgentExtensions): Tool[] {
  return [
    memoryTool(store.memories, extensions?.memoryMeaning),
    recordEpisodeTool(store.memories),
    assertFactTool(store.memories),
    rememberPreferenceTool(store.memories),
    noteTool(store.notes),
    todoWriteTool(store.todos),
    askUserTool(async (sessionId, toolCallId) => {
      const approval = await store.approvals.findForCall(sessionId, toolCallId);
      if (!approval || approval.status === "pending") return null;
      const user = approval.resolvedById ? await store.users.find(approval.resolvedById) : null;
      const answer = approval.answer;
      return {
        answer: typeof answer === "string" || Array.isArray(answer) ? (answer as string | string[]) : null,
        declined: approval.status === "rejected",
        by: user ? { id: user.id, name: user.name } : null,
      };
    }),
    sessionSearchTool(store.events.search),
    delegateTool(delegator),
  ];
}
