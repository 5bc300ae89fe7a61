import { generateText, type LanguageModel } from "ai";
import type { Db } from "@/server/db/client";
import { getProjectAgentSettings } from "@/server/db/repositories/agent-settings";
import { findProjectName, findSession } from "@/server/db/repositories/sessions";
import { getSetting } from "@/server/db/repositories/settings";
import type { Tool, ToolContext } from "@/server/tools/define-tool";
import type { SessionStatus } from "@/lib/session-events";
import type { EventLog } from "@/server/agent/events";
import { parsePolicy } from "@/server/agent/policy";
import { buildSystemPrompt } from "@/server/agent/prompts/system";
import { ModelConfigError, type ModelRegistry } from "@/server/agent/providers";
import type { TurnRun } from "@/server/agent/run";
import type { AgentRuntimeOptions } from "@/server/agent/runtime";
import { createSessionResources, sessionToolSet, type SessionResources } from "@/server/agent/session-tools";
import { deferTools } from "@/server/agent/deferred-tools";
import { turnTools } from "@/server/agent/turn-tools";
import type { Delegator } from "@/server/tools/delegate";
import type { ToolSet } from "@/server/tools/registry";
import { loadModelFacts } from "@/server/agent/usage";
import { switchedOffTools } from "@/server/tools/core-tools";
import { webSearchBackend } from "@/server/agent/web-search-backend";

// Everything a turn needs, gathered fresh each time it starts or continues: the session and its
// project's settings, the tool set and the context each call gets, the system prompt, the model.

export type TurnSetup = {
  db: Db;
  log: EventLog;
  options: AgentRuntimeOptions;
  ownTools: Tool[];
  delegator: Delegator;
  /** Per session, kept across turns: the read tracker, the shell, the output store. */
  resources: Map<string, SessionResources>;
  setStatus(sessionId: string, status: SessionStatus, reason?: string): Promise<void>;
};

export async function prepareTurn(setup: TurnSetup, turn: { sessionId: string; userId: string; resumed: boolean; signal: AbortSignal }): Promise<TurnRun> {
  const { db, log, options: o, ownTools, resources } = setup;
  const { sessionId, userId, resumed, signal } = turn;
  const session = await findSession(db, sessionId);
  if (!session) throw new Error(`session ${sessionId} no longer exists`);
  const workspace = await o.openWorkspace(session.projectId);
  let res = resources.get(sessionId);
  if (!res) resources.set(sessionId, (res = createSessionResources(workspace, sessionId, o.shell)));
  const settings = await getProjectAgentSettings(db, session.projectId);
  let tools: ToolSet = {};
  const extra = await turnTools({ extensions: o.extensions, projectId: session.projectId, workspace, delegator: setup.delegator, toolSet: () => tools });
  const excludeTools = switchedOffTools(settings.excludeTools);
  const webSearch = await webSearchBackend(db, o.webSearch);
  const deferred = deferTools(
    sessionToolSet({ base: o.baseTools, own: [...ownTools, ...extra], allowedTools: session.allowedTools, excludeTools, webSearch }),
    o.extensions?.deferToolsOver ?? settings.deferToolsOver,
  );
  tools = deferred.tools;
  const projectName = (await findProjectName(db, session.projectId)) ?? "project";
  const instructions = await buildSystemPrompt({
    workspace,
    projectName,
    now: o.now?.() ?? new Date(),
    subagent: session.parentId !== null,
    toolNames: Object.keys(tools),
  });
  const shared = res;
  const facts = await loadModelFacts(db, session.model);
  const toolContext = (toolCallId: string): ToolContext => ({
    workspace,
    projectId: session.projectId,
    sessionId,
    userId,
    toolCallId,
    signal,
    emit: (progress) => o.bus.publish(sessionId, { kind: "progress", toolCallId, progress }),
    reads: shared.reads,
    shell: shared.shell,
    outputs: shared.outputs,
    sandbox: o.sandbox,
    fetchPolicy: o.fetchPolicy ?? { allowHosts: [] },
    summarize: (prompt, content, summarizeSignal) => summarizeWith(o.models.resolve(session.model), prompt, content, summarizeSignal),
    modelAcceptsImages: facts.acceptsImages,
    webSearch,
  });
  return {
    db,
    log,
    sessionId,
    modelId: session.model,
    model: () => o.models.resolve(session.model),
    endpoint: safeEndpoint(o.models, session.model),
    instructions,
    tools,
    modelTools: deferred.modelTools,
    policy: { ...parsePolicy(settings, session.allowRules), guard: await getSetting(db, "commandGuard") },
    stepLimit: session.maxSteps ?? settings.stepLimit,
    loopGuardRepeats: settings.loopGuardRepeats,
    facts,
    resumed,
    signal,
    toolContext,
    snapshot: o.checkpoints ? async (label: string) => (await o.checkpoints!.open(session.projectId)).snapshot({ label }) : undefined,
    setStatus: (status: SessionStatus, reason?: string) => setup.setStatus(sessionId, status, reason),
    maxRetries: o.maxRetries,
  };
}

/** What web_fetch uses to answer its prompt over a fetched page, with the session's model. */
async function summarizeWith(model: LanguageModel, prompt: string, content: string, signal: AbortSignal) {
  const { text } = await generateText({
    model,
    instructions: "Answer the request using only the content given. Be concise; quote exact values such as versions and commands.",
    prompt: `${prompt}\n\n---\n\n${content}`,
    abortSignal: signal,
    maxRetries: 2,
  });
  return text;
}

function safeEndpoint(models: ModelRegistry, id: string) {
  try {
    return models.endpoint(id);
  } catch (error) {
    if (error instanceof ModelConfigError) return "(unknown)";
    throw error;
  }
}
