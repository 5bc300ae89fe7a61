import type { AgentStore } from "@/server/agent/agent-store";
import type { Db } from "@/server/db/client";
import * as settings from "@/server/db/repositories/agent-settings";
import * as approvals from "@/server/db/repositories/approvals";
import * as memories from "@/server/db/repositories/memories";
import { saveNote } from "@/server/db/repositories/notes";
import * as events from "@/server/db/repositories/session-events";
import * as images from "@/server/db/repositories/session-images";
import * as sessions from "@/server/db/repositories/sessions";
import { getSettings } from "@/server/db/repositories/settings";
import { replaceTodos } from "@/server/db/repositories/todos";
import { findUser } from "@/server/db/repositories/users";
import { setSessionTurnToken } from "@/server/db/repositories/turn-standing";

// The agent's store port (server/agent/agent-store.ts) on the repositories, built once by the
// composition root (server/compose-services.ts), for the server and for tests that run the agent
// on a real database.

export function createAgentStore(db: Db): AgentStore {
  return {
    sessions: {
      find: (id) => sessions.findSession(db, id),
      create: (input) => sessions.createSession(db, input),
      setStatus: (id, status) => sessions.setSessionStatus(db, id, status),
      addUsage: (id, usage) => sessions.addSessionUsage(db, id, usage),
      setAllowRules: (id, rules) => sessions.setSessionAllowRules(db, id, rules),
      setTurnToken: (id, tokenId) => setSessionTurnToken(db, id, tokenId),
      listChildren: (parentId) => sessions.listChildSessions(db, parentId),
      listIdsOfProject: (projectId) => sessions.listSessionIdsOfProject(db, projectId),
      listByStatus: (statuses) => sessions.findSessionsByStatus(db, statuses),
      listIdleWithUnansweredMessage: () => sessions.findIdleSessionsWithUnansweredMessage(db),
      delete: (id) => sessions.deleteSession(db, id),
    },
    events: {
      list: (sessionId, afterSeq, limit) => events.listEvents(db, sessionId, afterSeq, limit),
      insert: (rows) => events.insertEvents(db, rows),
      isSeqTaken: (error) => error instanceof events.SeqTakenError,
      lastSeq: (sessionId) => events.lastSeq(db, sessionId),
      search: (input) => events.searchSessionEvents(db, input),
    },
    approvals: {
      create: (input) => approvals.createApproval(db, input),
      bindRequest: (id, requestSeq) => approvals.bindRequest(db, id, requestSeq),
      find: (id) => approvals.findApproval(db, id),
      findForCall: (sessionId, toolCallId) => approvals.findApprovalForCall(db, sessionId, toolCallId),
      listPending: (sessionId) => approvals.listPendingApprovals(db, sessionId),
      resolve: (id, input) => approvals.resolveApproval(db, id, input),
    },
    images: {
      store: (sessionId, bytes, mediaType) => images.storeSessionImage(db, sessionId, bytes, mediaType),
      findRefs: (sessionId, hashes) => images.findSessionImageRefs(db, sessionId, hashes),
      load: (sessionId, hashes) => images.loadSessionImages(db, sessionId, hashes),
    },
    memories: {
      store: (owner, input) => memories.storeMemory(db, owner, input),
      retrieve: (owner, key) => memories.retrieveMemory(db, owner, key),
      delete: (owner, key) => memories.deleteMemory(db, owner, key),
      list: (owner) => memories.listMemories(db, owner),
      listOf: (owners) => memories.listMemoriesOf(db, owners),
      search: (owners, input) => memories.searchMemories(db, owners, input),
    },
    notes: { save: (input) => saveNote(db, input) },
    todos: { replace: (sessionId, todos) => replaceTodos(db, sessionId, todos) },
    users: { find: (id) => findUser(db, id) },
    settings: {
      projectForTurn: (projectId) => settings.findProjectForTurn(db, projectId),
      model: (modelId) => settings.findModelSetting(db, modelId),
      instance: () => getSettings(db, ["commandGuard", "webSearch"]),
    },
  };
}
