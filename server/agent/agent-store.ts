import type { CommandGuardConfig } from "@/lib/command-guard-config";
import type { ImageRef } from "@/lib/images";
import type { SessionEvent, SessionEventType, SessionStatus } from "@/lib/session-events";
import type { WebSearchBackendConfig } from "@/lib/web-search-config";
import type { MemoryAuthor, MemoryOwner } from "@/server/tools/memory";
import type { NoteStore } from "@/server/tools/note";
import type { SessionSearch } from "@/server/tools/session-search";
import type { TodoStore } from "@/server/tools/todo-write";

// The agent's storage, as a port: everything the runtime, its turns and its own tools read and
// write, and the shapes they read. server/services/agent-store.ts binds it to the repositories,
// once, at the composition root (server/compose-services.ts); the agent never imports server/db, so the
// same runtime runs from a tRPC call, a job, a sub-agent or a test.

export type AgentSession = {
  id: string;
  projectId: string;
  parentId: string | null;
  title: string;
  authorId: string | null;
  model: string;
  status: SessionStatus;
  allowedTools: string[] | null;
  maxSteps: number | null;
  allowRules: unknown;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  /** Who answers approvals: "team" (anyone who may write) or "author" only. */
  approvalsBy: "team" | "author";
  /** The session whose worktree this one works in (its own, or its parent's); null: the project's main tree. */
  treeId: string | null;
  createdAt: Date;
  updatedAt: Date;
};

/** A durable request for a person: an approval of one call, or an `ask_user` question. */
export type Approval = {
  id: string;
  sessionId: string;
  toolCallId: string;
  toolName: string;
  kind: "tool" | "question";
  input: unknown;
  status: "pending" | "approved" | "rejected" | "answered";
  decision: string | null;
  feedback: string | null;
  answer: unknown;
  resolvedById: string | null;
  turnId: string | null;
  /** The seq of its `approval_requested` event, once written (call-binding.ts). */
  requestSeq: number | null;
  callHash: string | null;
  plan: unknown;
};

/** An event row whose seq the log assigned (events.ts). */
export type NewEventRow = {
  sessionId: string;
  seq: number;
  type: SessionEventType;
  payload: unknown;
  authorId: string | null;
  createdAt: Date;
};

/** The project's agent settings, as stored (policy.ts and turn-setup.ts parse them). */
export type ProjectAgentSettings = {
  approvalMode: string;
  allowRules: unknown;
  denyRules: unknown;
  stepLimit: number;
  loopGuardRepeats: number;
  excludeTools: unknown;
  deferToolsOver: number;
  hooksDigest: string | null;
};

/** An admin's prices and limits for one model (model.setSettings); null fields fall back to the catalog. */
export type ModelSetting = {
  inputPerMTok: number | null;
  outputPerMTok: number | null;
  cachedInputPerMTok: number | null;
  contextWindow: number | null;
  acceptsImages: boolean | null;
};

export type StoredMemory = { scope: "project" | "user"; key: string; value: string; pinned: boolean };

export type AgentStore = {
  sessions: {
    find(id: string): Promise<AgentSession | null>;
    create(input: {
      projectId: string;
      title: string;
      authorId: string | null;
      model: string;
      parentId?: string;
      allowedTools?: string[];
      maxSteps?: number;
      /** The tree it works in: a sub-agent's parent's; a session on a branch of its own gets `id` as both. */
      treeId?: string | null;
      id?: string;
    }): Promise<AgentSession>;
    /** False when the session already had this status (or is gone). */
    setStatus(id: string, status: SessionStatus): Promise<boolean>;
    addUsage(id: string, usage: { inputTokens: number; outputTokens: number; costUsd: number }): Promise<unknown>;
    setAllowRules(id: string, rules: unknown[]): Promise<void>;
    /** The API token the session's turn runs under from now on (turn-authority.ts); null: none. True: it changed. */
    setTurnToken(id: string, tokenId: string | null): Promise<boolean>;
    listChildren(parentId: string): Promise<AgentSession[]>;
    listIdsOfProject(projectId: string): Promise<string[]>;
    listByStatus(statuses: SessionStatus[]): Promise<AgentSession[]>;
    /** Top-level idle sessions whose log ends with a person's message, with that message's author. */
    listIdleWithUnansweredMessage(): Promise<Array<{ id: string; userId: string }>>;
    delete(id: string): Promise<void>;
  };
  events: {
    /** The log after `afterSeq`, in seq order, at most `limit` events. */
    list(sessionId: string, afterSeq?: number, limit?: number): Promise<SessionEvent[]>;
    /** Inserts rows in one statement; a seq another writer took fails it (`isSeqTaken`). */
    insert(rows: NewEventRow[]): Promise<void>;
    isSeqTaken(error: unknown): boolean;
    lastSeq(sessionId: string): Promise<number>;
    search: SessionSearch;
  };
  approvals: {
    create(input: {
      sessionId: string;
      toolCallId: string;
      toolName: string;
      kind: "tool" | "question";
      input: unknown;
      turnId: string;
      callHash: string;
      plan: unknown;
    }): Promise<Approval>;
    /** Records where the request is in the log; only a request with no seq yet is bound. */
    bindRequest(id: string, requestSeq: number): Promise<void>;
    find(id: string): Promise<Approval | null>;
    /** The last request made for a call of this session (ask_user reads its answer here). */
    findForCall(sessionId: string, toolCallId: string): Promise<Approval | null>;
    listPending(sessionId: string): Promise<Approval[]>;
    /** False when someone else answered first. */
    resolve(
      id: string,
      input: {
        status: "approved" | "rejected" | "answered";
        decision: string;
        feedback?: string;
        answer?: unknown;
        resolvedById: string;
      },
    ): Promise<boolean>;
  };
  images: {
    store(sessionId: string, bytes: Buffer, mediaType: string): Promise<ImageRef>;
    findRefs(sessionId: string, hashes: string[]): Promise<ImageRef[]>;
    load(sessionId: string, hashes: string[]): Promise<Map<string, { data: Uint8Array; mediaType: string }>>;
  };
  /** The memory tool's store (server/tools/memory.ts), and what a turn's prompt reads of it. */
  memories: {
    store(owner: MemoryOwner, input: { key: string; value: string } & MemoryAuthor): Promise<StoredMemory>;
    retrieve(owner: MemoryOwner, key: string): Promise<StoredMemory | null>;
    delete(owner: MemoryOwner, key: string): Promise<boolean>;
    list(owner: MemoryOwner): Promise<StoredMemory[]>;
    /** Every memory of these owners, pinned first. */
    listOf(owners: MemoryOwner[]): Promise<StoredMemory[]>;
    /** Ranked full-text search; `score` is 0–1. */
    search(
      owners: MemoryOwner[],
      input: { query: string; limit: number; threshold: number },
    ): Promise<Array<StoredMemory & { score: number }>>;
  };
  notes: NoteStore;
  todos: TodoStore;
  users: { find(id: string): Promise<{ id: string; name: string } | null> };
  settings: {
    /** The project's name and agent settings, in one read; null when the project is gone. */
    projectForTurn(projectId: string): Promise<{ name: string; settings: ProjectAgentSettings } | null>;
    model(modelId: string): Promise<ModelSetting | null>;
    /** The instance settings a turn uses: the command guard and the admin's web search service. */
    instance(): Promise<{ commandGuard: CommandGuardConfig; webSearch: WebSearchBackendConfig | null }>;
  };
};
