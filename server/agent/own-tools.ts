import type { Db } from "@/server/db/client";
import { findApprovalForCall } from "@/server/db/repositories/approvals";
import * as memories from "@/server/db/repositories/memories";
import { saveNote } from "@/server/db/repositories/notes";
import { searchSessionEvents } from "@/server/db/repositories/session-events";
import { replaceTodos } from "@/server/db/repositories/todos";
import { findUser } from "@/server/db/repositories/users";
import type { Tool } from "@/server/tools/define-tool";
import { askUserTool } from "@/server/tools/ask-user";
import { delegateTool, type Delegator } from "@/server/tools/delegate";
import { memoryTool } from "@/server/tools/memory";
import { noteTool } from "@/server/tools/note";
import { recallUserContextTool } from "@/server/tools/recall-user-context";
import { sessionSearchTool } from "@/server/tools/session-search";
import { todoWriteTool } from "@/server/tools/todo-write";

// The runtime's own tools, bound to their storage. The tools themselves only see small store
// interfaces, never the database.

export function createOwnTools(db: Db, delegator: Delegator): Tool[] {
  return [
    memoryTool({
      store: (owner, input) => memories.storeMemory(db, owner, input),
      retrieve: (owner, key) => memories.retrieveMemory(db, owner, key),
      delete: (owner, key) => memories.deleteMemory(db, owner, key),
      search: (owners, input) => memories.searchMemories(db, owners, input),
      list: (owner) => memories.listMemories(db, owner),
    }),
    recallUserContextTool((owners, input) => memories.searchMemories(db, owners, input)),
    noteTool({ save: (input) => saveNote(db, input) }),
    todoWriteTool({ replace: (sessionId, todos) => replaceTodos(db, sessionId, todos) }),
    askUserTool(async (sessionId, toolCallId) => {
      const approval = await findApprovalForCall(db, sessionId, toolCallId);
      if (!approval || approval.status === "pending") return null;
      const user = approval.resolvedById ? await findUser(db, approval.resolvedById) : null;
      const answer = approval.answer;
      return {
        answer: typeof answer === "string" || Array.isArray(answer) ? (answer as string | string[]) : null,
        declined: approval.status === "rejected",
        by: user ? { id: user.id, name: user.name } : null,
      };
    }),
    sessionSearchTool((input) => searchSessionEvents(db, input)),
    delegateTool(delegator),
  ];
}
