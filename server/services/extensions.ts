import { memoryMeaning } from "@/server/services/memory-meaning";
import type { ForgeApi } from "@/server/services/forge-api";
import { telemetrySummary } from "@/server/db/repositories/telemetry";
import type { Config } from "@/server/env/config";
import { ModelConfigError } from "@/server/agent/providers";
import { createEmbedder } from "@/server/agent/embedding-models";
import type { Db } from "@/server/db/client";
import { findUser } from "@/server/db/repositories/users";
import type { AgentExtensions } from "@/server/agent/extensions";
import type { AgentRuntime } from "@/server/agent/runtime";
import type { Sandbox } from "@/server/sandbox/sandbox";
import type { NetworkPolicy } from "@/lib/egress-policy";
import type { Workspace } from "@/server/workspace";
import { createKnowledgeIndex } from "@/server/services/knowledge-index";
import { createKnowledgeEmbeddings, type EmbeddingSource } from "@/server/services/knowledge-embeddings";
import { createVectorSearch } from "@/server/services/knowledge-vectors";
import { createMailSender } from "@/server/services/mail";
import { createProjectTools } from "@/server/services/project-tools";
import type { SecretEnvironment } from "@/server/services/secrets";
import { createScheduler } from "@/server/services/scheduler";
import type { ProjectChannels } from "@/server/tools/send-message";

// Everything a team adds to its agent, wired for the server: the project's MCP servers and
// discovered tools, the knowledge index, scheduled tasks (pg-boss) and mail (when SMTP is set).
// `agent` is what the runtime gets; the rest is for the settings API. The scheduler runs tasks
// through the runtime, which exists only after these, hence `attach`.

export type Extensions = ReturnType<typeof createExtensions>;

export function createExtensions(options: {
  config: Pick<Config, "smtp" | "embedding" | "models" | "mcpAllowHosts"> & { cluster?: boolean };
  db: Db;
  databaseUrl: string;
  sandbox: Sandbox;
  /** The project's network policy in force: remote MCP servers are refused when it is off. */
  projectNetwork(projectId: string): Promise<NetworkPolicy>;
  openWorkspace(projectId: string): Promise<Workspace>;
  /** The project's secrets (its team's and its own) for MCP servers and discovery commands. */
  secrets?(projectId: string): Promise<SecretEnvironment>;
  schedulerPollingSeconds?: number;
  now?: () => Date;
  deferToolsOver?: number;
  /** The forge APIs people's stored tokens open (forge-api.ts). */
  forgeApi?: ForgeApi;
  /** The projects' chat channels, for send_message (server/services/project-channels.ts). */
  channels?: ProjectChannels;
}) {
  const { db } = options;
  let runtime: AgentRuntime | null = null;
  const projectTools = createProjectTools({
    db,
    sandbox: options.sandbox,
    openWorkspace: options.openWorkspace,
    mcpAllowHosts: options.config.mcpAllowHosts,
    projectNetwork: options.projectNetwork,
    secrets: options.secrets,
  });
  const embedding = options.config.embedding;
  const source = embedding ? embeddingSource(options.config) : null;
  const knowledge = createKnowledgeIndex({
    db,
    ...(source ? { embeddings: createKnowledgeEmbeddings({ db, source, vectors: createVectorSearch(db) }) } : {}),
  });
  const mail = options.config.smtp ? createMailSender(options.config.smtp) : undefined;
  const scheduler = createScheduler({
    db,
    databaseUrl: options.databaseUrl,
    now: options.now,
    pollingIntervalSeconds: options.schedulerPollingSeconds,
    async run(task) {
      if (!runtime) throw new Error("the agent runtime is not running");
      const user = await findUser(db, task.createdById);
      if (!user) throw new Error("the person who scheduled this task no longer exists");
      const session = await runtime.createSession({
        projectId: task.projectId,
        title: `Scheduled: ${task.description}`.slice(0, 80),
        authorId: user.id,
        ...(task.model ? { model: task.model } : {}),
      });
      await runtime.send({
        sessionId: session.id,
        text: task.taskPayload,
        user: { id: user.id, name: user.name },
        timeZone: task.timezone,
      });
      return { sessionId: session.id };
    },
  });

  const agent: AgentExtensions = {
    projectTools: (projectId, workspace) => projectTools.tools(projectId, workspace),
    mcpServers: async (projectId) => (await projectTools.status(projectId, 0)).servers,
    telemetry: (projectId, since) => telemetrySummary(options.db, { projectId, since }),
    ...(source && "model" in source ? { memoryMeaning: memoryMeaning(db, source) } : {}),
    ...(options.forgeApi ? { forgeApi: options.forgeApi.forPerson } : {}),
    knowledge: (ctx, input) => knowledge.search(ctx.projectId, ctx.workspace, input.query, input.limit, ctx.signal),
    scheduler: scheduler.tool,
    ...(mail ? { mail } : {}),
    ...(options.channels ? { channels: options.channels } : {}),
    ...(options.deferToolsOver !== undefined ? { deferToolsOver: options.deferToolsOver } : {}),
  };

  return {
    agent,
    projectTools,
    knowledge,
    scheduler,
    mailConfigured: !!mail,
    /** Starts the scheduler's worker, when there is something to run, once the runtime exists. */
    async attach(agentRuntime: AgentRuntime) {
      runtime = agentRuntime;
      await scheduler.boot({ always: options.config.cluster });
    },
    async dispose() {
      await scheduler.stop();
      await knowledge.dispose();
      mail?.close();
      await projectTools.dispose();
    },
  };
}

/** The configured embedding model, or why it cannot be used (shown instead of failing start-up). */
function embeddingSource(config: Pick<Config, "embedding" | "models">): EmbeddingSource {
  const embedding = config.embedding!;
  try {
    return createEmbedder(embedding, config.models);
  } catch (error) {
    if (error instanceof ModelConfigError) return { id: embedding.model, problem: error.message };
    throw error;
  }
}
