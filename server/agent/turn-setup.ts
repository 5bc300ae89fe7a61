import type { FixedCosts } from "@/server/agent/fixed-costs";
import { treeKey } from "@/lib/trees";
import { generateText, type LanguageModel } from "ai";
import type { AgentSession, AgentStore, StoredMemory } from "@/server/agent/agent-store";
import type { CallGrant, Tool, ToolContext } from "@/server/tools/define-tool";
import type { SessionEvent, SessionStatus } from "@/lib/session-events";
import type { EventLog } from "@/server/agent/events";
import { parsePolicy } from "@/server/agent/policy";
import { gatedShell } from "@/server/agent/command-gate";
import { buildSystemPrompt } from "@/server/agent/prompts/system";
import { contextUsed, type MemoryEntry } from "@/server/agent/prompts/context";
import { gatherContext, type MemorySource } from "@/server/agent/prompts/gather-context";
import type { MemoryOwner } from "@/server/tools/memory";
import { gitSummary } from "@/server/git/summary";
import { folderInstructions } from "@/server/agent/folder-instructions";
import { safeEndpoint } from "@/server/agent/errors";
import type { TurnContext } from "@/server/agent/turn-context";
import type { AgentRuntimeOptions } from "@/server/agent/runtime-options";
import {
  createSessionResources,
  defaultChildTools,
  NO_AGENT_SECRETS,
  secretsKey,
  sessionToolSet,
  type SessionResources,
} from "@/server/agent/session-tools";
import { deferTools } from "@/server/agent/deferred-tools";
import { turnTools } from "@/server/agent/turn-tools";
import type { Delegator } from "@/server/tools/delegate";
import type { ToolSet } from "@/server/tools/registry";
import { BROWSER_TOOL, LANGUAGE_TOOLS } from "@/server/tools/core-tools";
import { loadModelFacts } from "@/server/agent/usage";
import { switchedOffTools } from "@/server/tools/core-tools";
import { chooseWebSearch } from "@/server/agent/web-search-backend";
import { sandboxRuntimes } from "@/server/agent/prompts/workspace-probe";
import { resultCharsFor } from "@/server/tools/truncate";
import { turnHooks } from "@/server/agent/hooks";

// Everything a turn needs, gathered fresh each time it starts or continues: the session and its
// project's settings, the tool set and the context each call gets, the system prompt, the model.

export type TurnSetup = {
  log: EventLog;
  options: AgentRuntimeOptions;
  ownTools: Tool[];
  delegator: Delegator;
  /** Per session, kept across turns: the read tracker, the shell, the output store. */
  resources: Map<string, SessionResources>;
  setStatus(sessionId: string, status: SessionStatus, reason?: string): Promise<void>;
  fixedCosts: FixedCosts;
};

/**
 * The session row and its log from seq 1, as a caller that starts the turn has just read them
 * (session.send). The turn starts from these instead of reading them again: the log is the
 * largest read of a turn's start, and the run reads only what was appended after it.
 */
export type KnownSession = { session: AgentSession; events: SessionEvent[] };

export async function prepareTurn(
  setup: TurnSetup,
  turn: { sessionId: string; userId: string; resumed: boolean; signal: AbortSignal; known?: KnownSession },
): Promise<TurnContext> {
  const { log, options: o, ownTools, resources } = setup;
  const { store } = o;
  const { sessionId, userId, resumed, signal } = turn;
  const session = turn.known?.session ?? (await store.sessions.find(sessionId));
  if (!session) throw new Error(`session ${sessionId} no longer exists`);
  const events = turn.known?.events ?? (await store.events.list(sessionId));
  // The session's tree: its own worktree (a sub-agent's parent's), else the project's main tree.
  const workspace = await o.openWorkspace(session.projectId, session.treeId);
  // The author's own secrets only while the session is theirs alone: once another person wrote into
  // it, their words could drive a command that reads the author's secret (docs/security.md#secrets).
  // A sub-agent gets none: its parent's conversation, whoever wrote it, drives it.
  const othersWrote = events.some((e) => e.type === "user_message" && e.authorId && e.authorId !== session.authorId);
  const personId = othersWrote || session.parentId !== null ? null : session.authorId;
  const given = (await o.secrets?.({ projectId: session.projectId, personId })) ?? NO_AGENT_SECRETS;
  // The author's values stay hidden even when withheld: an earlier command may have left one in a file.
  const hiding =
    personId === session.authorId || !session.authorId || !o.secrets
      ? given.redactor
      : (await o.secrets({ projectId: session.projectId, personId: session.authorId })).redactor;
  const secrets = { env: given.env, redactor: hiding };
  log.redactWith(sessionId, secrets.redactor);
  let res = resources.get(sessionId);
  if (res && res.secretsKey !== secretsKey(secrets)) {
    // Other secrets than the shell started with (added, removed, or the author's withdrawn): a new shell.
    await res.shell.dispose();
    res = undefined;
  }
  if (!res)
    resources.set(sessionId, (res = createSessionResources(workspace, session.projectId, sessionId, o.shell, secrets)));
  // A rewind hides reads from the conversation: what the model saw then is no longer in view.
  const rewound = events.findLast((e) => e.type === "rewind" || e.type === "restore_undone")?.seq ?? 0;
  if (rewound > res.rewoundAt) {
    res.reads.forgetViews();
    res.announced.clear();
    res.rewoundAt = rewound;
  }
  // The project (name, agent settings) and the instance settings a turn uses, one query each.
  const [project, instance, facts] = await Promise.all([
    store.settings.projectForTurn(session.projectId),
    store.settings.instance(),
    loadModelFacts(store, session.model, o.models),
  ]);
  if (!project) throw new Error(`project ${session.projectId} no longer exists`);
  const { settings } = project;
  let tools: ToolSet = {};
  const extra = await turnTools({
    extensions: o.extensions,
    projectId: session.projectId,
    workspace,
    delegator: setup.delegator,
    toolSet: () => tools,
    sandbox: o.sandbox,
    personName: async (id) => (await store.users.find(id))?.name ?? "someone",
    personId,
    report: () => ({
      model: session.model,
      approvalMode: policy.mode,
      allowRules: policy.allow.length,
      denyRules: policy.deny.length,
      stepLimit,
      sandbox: o.sandbox.mode,
      network,
      tools: toolNames,
      deferred: toolNames.filter((name) => !(name in deferred.modelTools(events))),
      switchedOff: excludeTools,
      webSearch: webSearch?.kind ?? null,
      languageServers: !!language,
    }),
  });
  const excludeTools = switchedOffTools(settings.excludeTools);
  const webSearch = chooseWebSearch(instance.webSearch, o.webSearch);
  const deferred = deferTools(
    sessionToolSet({
      base: o.baseTools,
      own: [...ownTools, ...(o.language ? LANGUAGE_TOOLS : []), ...(o.browsers ? [BROWSER_TOOL] : []), ...extra],
      allowedTools: session.allowedTools,
      excludeTools,
      webSearch,
    }),
    { threshold: o.extensions?.deferToolsOver ?? settings.deferToolsOver, contextWindow: facts.contextWindow },
  );
  tools = deferred.tools;
  const toolNames = Object.keys(tools);
  const lastMessage = events.findLast((e) => e.type === "user_message");
  const environment = await o.environment?.(session.projectId).catch(() => null);
  const toolchains = (environment?.toolchains ?? []).map((t) => `${t.name}@${t.version}`).join(" ");
  const [context, git, network, runtimes] = await Promise.all([
    gatherContext({
      workspace,
      memories: memorySource(store, [
        { scope: "project", projectId: session.projectId },
        { scope: "user", userId },
      ]),
      query: lastMessage?.type === "user_message" ? lastMessage.payload.text : "",
      toolNames,
      ...(o.extensions?.knowledge && toolNames.includes("search_knowledge_base")
        ? {
            knowledge: (query: string) =>
              o.extensions!.knowledge!({ projectId: session.projectId, workspace, signal }, { query, limit: 8 }),
          }
        : {}),
    }),
    gitSummary({ root: workspace.root, sandbox: o.sandbox, signal }),
    o.sandbox.network(session.projectId),
    // Only a session with a shell has a use for them.
    toolNames.includes("shell")
      ? sandboxRuntimes(o.sandbox, workspace.root, { id: session.projectId, toolchains })
      : null,
  ]);
  const stepLimit = session.maxSteps ?? settings.stepLimit;
  const policy = { ...parsePolicy(settings, session.allowRules), guard: instance.commandGuard };
  const instructions = buildSystemPrompt({
    projectName: project.name,
    root: workspace.root,
    now: o.now?.() ?? new Date(),
    sandbox: o.sandbox.mode,
    network,
    git,
    toolNames,
    readOnly: Object.values(tools).every((t) => t.kind !== "edit" && t.kind !== "execute"),
    approvalMode: policy.mode,
    runtimes,
    environment: environment ?? null,
    secrets: Object.keys(secrets.env),
    sharedNetwork: o.sandbox.networks !== null,
    modelId: session.model,
    ...(session.parentId !== null ? { subagent: { stepLimit } } : {}),
    context,
  });
  const shared = res;
  const sandbox = {
    mode: o.sandbox.mode,
    network,
    limits: o.sandbox.host.limits,
    diskFull: () => o.sandbox.diskFull(session.projectId),
  };
  // Language servers per tree: a worktree's files are not the main tree's.
  const language = o.language?.forProject(treeKey({ projectId: session.projectId, treeId: session.treeId }), workspace);
  // Only the main tree's files are open live; a branch session's worktree is its own.
  const by = { sessionId, name: agentName(session.title) };
  const liveEdits =
    o.liveEdits && !session.treeId
      ? {
          wrote: (path: string, version: string) =>
            o.liveEdits!.wrote({ projectId: session.projectId, path, version, by }),
        }
      : undefined;
  const toolContext = (toolCallId: string, grant?: CallGrant): ToolContext => ({
    workspace,
    projectId: session.projectId,
    sessionId,
    userId,
    toolCallId,
    signal,
    emit: (progress) =>
      o.bus.publish(sessionId, { kind: "progress", toolCallId, progress: secrets.redactor.redactDeep(progress) }),
    reads: shared.reads,
    prefetch: shared.prefetch,
    ...(liveEdits ? { liveEdits } : {}),
    shell: gatedShell(shared.shell, policy, grant, { signal }),
    ...(grant ? { grant } : {}),
    outputs: shared.outputs,
    sandbox,
    fetchPolicy: o.fetchPolicy ?? { allowHosts: [] },
    summarize: (prompt, content, summarizeSignal) =>
      summarizeWith(o.models.resolve(session.model), prompt, content, summarizeSignal),
    modelAcceptsImages: facts.acceptsImages,
    maxResultChars: resultCharsFor(facts.contextWindow),
    childTools: () => defaultChildTools(tools),
    ...(lastMessage?.type === "user_message" && lastMessage.payload.timeZone
      ? { timeZone: lastMessage.payload.timeZone }
      : {}),
    webSearch,
    ...(language ? { language } : {}),
    ...(o.browsers ? { browser: () => o.browsers!.session({ sessionId, projectId: session.projectId, userId }) } : {}),
  });
  return {
    store,
    log,
    sessionId,
    events,
    modelId: session.model,
    model: () => o.models.resolve(session.model),
    endpoint: safeEndpoint(o.models, session.model),
    instructions,
    tools,
    modelTools: deferred.modelTools,
    policy,
    stepLimit,
    ...(session.parentId !== null ? { reportAtLimit: true } : {}),
    contextUsed: contextUsed(context),
    onFixedCost: (chars) => setup.fixedCosts.record(session.model, chars, facts.contextWindow),
    onContextCut: () => {
      shared.reads.forgetViews();
      shared.announced.clear();
    },
    folderInstructions: folderInstructions(workspace, shared.announced),
    backgroundJobs: () =>
      shared.shell
        .jobs()
        .filter((j) => j.running)
        .map((j) => `${j.id}: ${j.command}`),
    loopGuardRepeats: settings.loopGuardRepeats,
    facts,
    ...(o.spending
      ? {
          spending: {
            admitStep: () =>
              o.spending!.admitStep({
                sessionId,
                projectId: session.projectId,
                userId,
                model: session.model,
                priced: facts.prices !== null,
              }),
          },
        }
      : {}),
    resumed,
    signal,
    toolContext,
    hooks: turnHooks({
      workspace,
      approvedDigest: settings.hooksDigest,
      sandbox: o.sandbox,
      projectId: session.projectId,
      sessionId,
      policy,
      signal,
      ran: async (call, run) => {
        await log.append(sessionId, "hook_ran", { turnId: call.turnId, toolCallId: call.toolCallId, ...run });
      },
      held: async (call, reason) => {
        await log.append(sessionId, "hooks_held", { turnId: call.turnId, reason });
      },
      ...(o.checkpoints ? { changes: () => o.checkpoints!.open(session.projectId, session.treeId) } : {}),
    }),
    snapshot: o.checkpoints
      ? async (label: string) => (await o.checkpoints!.open(session.projectId, session.treeId)).snapshot({ label })
      : undefined,
    setStatus: (status: SessionStatus, reason?: string) => setup.setStatus(sessionId, status, reason),
    maxRetries: o.maxRetries,
    metrics: o.metrics,
  };
}

/** The agent as people see its cursor in a live document: its session's title, briefly. */
function agentName(title: string): string {
  const short = title.trim().length > 24 ? `${title.trim().slice(0, 23)}…` : title.trim();
  return short ? `Agent · ${short}` : "Agent";
}

/** The memories a turn may show: the project's and the user's. */
function memorySource(store: AgentStore, owners: MemoryOwner[]): MemorySource {
  const entry = (m: StoredMemory): MemoryEntry => ({ scope: m.scope, key: m.key, value: m.value, pinned: m.pinned });
  return {
    all: async () => (await store.memories.listOf(owners)).map(entry),
    relevant: async (query, limit) => (await store.memories.search(owners, { query, limit, threshold: 0 })).map(entry),
  };
}

/** What web_fetch uses to answer its prompt over a fetched page, with the session's model. */
async function summarizeWith(model: LanguageModel, prompt: string, content: string, signal: AbortSignal) {
  const { text } = await generateText({
    model,
    instructions:
      "Answer the request using only the content given. Be concise; quote exact values such as versions and commands.",
    prompt: `${prompt}\n\n---\n\n${content}`,
    abortSignal: signal,
    maxRetries: 2,
  });
  return text;
}
