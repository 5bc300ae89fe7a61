import type { Forges } from "@/lib/git-forges";
import { createForgeApi } from "@/server/services/forge-api";
import { createPreviews } from "@/server/preview/previews";
import { createPreviewGate } from "@/server/services/preview-gate";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Context, Services } from "@/server/api/context";
import { createAuth } from "@/server/auth/auth";
import { createLoginCache } from "@/server/auth/login-cache";
import { createApiTokenReader } from "@/server/auth/api-tokens";
import { createSpending, inboxBudgetNotices, type BudgetNotices } from "@/server/services/spending";
import { loadConfig } from "@/server/env";
import { createCheckpointStores } from "@/server/services/checkpoints";
import { createProjectFiles } from "@/server/services/project-files";
import { createTerminalService } from "@/server/terminal";
import { createTestDatabase } from "./database";
import type { Tool } from "@/server/tools/define-tool";
import { createAgentRuntime } from "@/server/agent/runtime";
import { createAgentStore } from "@/server/services/agent-store";
import { thisThread } from "@/server/agent/loop-load";
import { createTurnJobs } from "@/server/cluster/turn-jobs";
import { createExtensions } from "@/server/services/extensions";
import type { EmbeddingConfig } from "@/lib/model-providers";
import type { SmtpConfig } from "@/server/env";
import { createShellSession } from "@/server/workspace/shell-session";
import { createModelRegistry } from "@/server/agent/providers";
import { createModelThread } from "@/server/agent/model-thread/model-thread";
import { createInProcessBus, tapCommittedEvents } from "@/server/bus/session-bus";
import { createBoardChanges } from "@/server/bus/board-changes";
import { createSessionBoard } from "@/server/services/session-board";
import { createInboxChanges } from "@/server/bus/inbox-changes";
import { createNotifications } from "@/server/services/notifications";
import { createProjectChannels } from "@/server/services/project-channels";
import { createSessionNotices } from "@/server/services/session-notices";
import { createPresence } from "@/server/bus/presence";
import { createLinkRevocations } from "@/server/bus/link-revocations";
import { createAccessChanges } from "@/server/bus/access-changes";
import { createRateLimits } from "@/server/api/rate-limit";
import { defaultSandboxHost, type SandboxMode } from "@/server/sandbox/launcher";
import { createSandbox } from "@/server/sandbox/sandbox";
import { treeRoots } from "@/server/sandbox/tree-roots";
import { createDiskBudget } from "@/server/sandbox/disk-budget";
import { diskUsageBytes } from "@/server/workspace/disk-usage";
import { createProjectNetwork } from "@/server/services/network";
import { createLanguageServers } from "@/server/language/language-servers";
import { languagePlugins } from "@/server/services/language-plugins";
import type { LanguagePlugins } from "@/lib/language-plugins";
import { createLiveDocs } from "@/server/live-docs/live-docs";
import { createUnsavedJournal } from "@/server/live-docs/unsaved-journal";
import { findAutosave } from "@/server/db/repositories/live-settings";
import { credentialCipher } from "@/server/git/credential-cipher";
import { createProjectGit } from "@/server/services/project-git";
import { createSessionTrees } from "@/server/services/session-trees";
import { createProjectWebhooks } from "@/server/services/project-webhooks";
import { createAgentBrowsers } from "@/server/services/agent-browsers";
import { createProjectEnvironment, createToolchains } from "@/server/services/project-environment";
import { secretEnvironment } from "@/server/services/secrets";

// The API's services on a fresh database and data directory, for integration tests.
// `modelBaseUrl` points the `openai-compatible` provider at a scripted model server
// (e2e/fixtures/model-server) and makes `openai-compatible:scripted` the default model;
// `tools` replaces the registry's core tools for the agent. `extensions` adds MCP, discovery,
// knowledge, the scheduler (polling every `schedulerPollingSeconds`) and mail (with `smtp`).
// `mcpAllowHosts` is TANDEM_MCP_ALLOW_HOSTS: remote MCP hosts allowed on loopback or private addresses.
export type TestExtensionOptions = {
  schedulerPollingSeconds?: number;
  smtp?: SmtpConfig;
  deferToolsOver?: number;
  embedding?: EmbeddingConfig;
  mcpAllowHosts?: string[];
  /** TANDEM_GIT_FORGES: github_api and gitlab_api reach these forges with people's stored tokens. */
  forges?: Forges;
};
// `sandbox: "bwrap"` runs project processes in bubblewrap with the projects' network policies, the
// egress proxy resolving `egressTestHosts` names to their (loopback) addresses; with `installDir`
// the sandbox host is the production one (masks of install dir, data dir and home; a per-project
// uid when root), for a server "installed" in `installDir` with its data in `dataDir`.
// `diskBudgetMiB` gives every project that disk budget, measured as in production but every 200 ms.
export async function createTestServices(
  options: {
    importRoots?: string[];
    modelBaseUrl?: string;
    /** The scripted model served as Ollama (`ollama:scripted`, the default) as well as `openai-compatible:scripted`. */
    modelAsOllama?: boolean;
    tools?: readonly Tool[];
    extensions?: TestExtensionOptions;
    sandbox?: SandboxMode;
    egressTestHosts?: Map<string, string>;
    installDir?: string;
    dataDir?: string;
    /** Gives the agent the language servers' tools. */
    language?: boolean;
    /** The server admin's language servers (TANDEM_LANGUAGE_SERVERS). */
    languageServers?: LanguagePlugins;
    /** Hosts (host:port) web_fetch may reach on loopback. */
    fetchAllowHosts?: string[];
    diskBudgetMiB?: number;
    /** TANDEM_INTERNAL_HOSTS. */
    internalHosts?: string[];
    /** Runs each project's processes as a uid of its own (root only), so a workspace's processes share one network (workspace-network.ts). */
    perProjectUid?: boolean;
    /** Gives the agent its browser (a Chromium found as in production); the test starts the preview server (listenPreviews). */
    browser?: boolean;
    /** TANDEM_TOOLCHAIN_REGISTRY, and a toolchain cache kept between tests (its own under the data dir by default). */
    toolchainRegistry?: string;
    toolchainCache?: string;
    /** Gives the agent its shell (sessions' commands) without the other extensions. */
    shell?: boolean;
    /** Hosts (host:port) chat webhooks (notifications, send_message channels) may reach on loopback. */
    chatAllowHosts?: string[];
    /** The notifications' digest window and how often waiting digests are looked at. */
    digestWindowMs?: number;
    digestSweepMs?: number;
    /** Where budgets' 80% notices go (the server's log by default, as in production). */
    budgetNotices?: BudgetNotices;
  } = {},
) {
  const database = await createTestDatabase();
  const dataDir = options.dataDir ?? (await fs.mkdtemp(path.join(os.tmpdir(), "tandem-test-data-")));
  // The test git servers speak plain http on loopback (server/test/git-http-server.ts).
  const config = {
    ...loadConfig({ TANDEM_DATA_DIR: dataDir, TANDEM_GIT_ALLOW_HTTP: "true" }),
    importRoots: options.importRoots ?? [],
    internalHosts: options.internalHosts ?? [],
  };
  const accessChanges = createAccessChanges();
  const auth = createAuth({
    db: database.db,
    secret: "x".repeat(32),
    secureCookies: false,
    onAccessChanged: (userId) => accessChanges.publish({ kind: "user", userId }),
  });
  const network = createProjectNetwork(database.db, { internalHosts: config.internalHosts });
  const diskBudget = options.diskBudgetMiB
    ? createDiskBudget({
        budgetMiB: options.diskBudgetMiB,
        fileSizeMiB: config.sandboxLimits.fileSizeMiB,
        intervalMs: 200,
        measure: diskUsageBytes,
      })
    : undefined;
  const files = createProjectFiles(dataDir, config.importRoots, diskBudget);
  const toolchains = createToolchains({
    db: database.db,
    files,
    dataDir,
    registry: options.toolchainRegistry ?? config.toolchainRegistry,
    cacheDir: options.toolchainCache,
  });
  const sandbox = createSandbox({
    toolchains,
    host: options.installDir
      ? defaultSandboxHost(options.sandbox ?? "bwrap", {
          dataDir,
          installDir: options.installDir,
          limits: config.sandboxLimits,
        })
      : {
          mode: options.sandbox ?? "none",
          masks: [dataDir],
          perProjectUid: options.perProjectUid ?? false,
          limits: null,
          trees: treeRoots(dataDir),
        },
    policies: network.policies,
    testHosts: options.egressTestHosts,
    // As in production, a connection that cannot be recorded is not a failure: a project whose
    // clone failed is deleted before its last connection's row is written.
    log: (connection) => void network.log(connection).catch(() => undefined),
    diskBudget,
  });
  const terminals = createTerminalService({ sandbox });
  const language = createLanguageServers({
    sandbox,
    plugins: languagePlugins(database.db, options.languageServers ?? {}),
  });
  const liveDocs = createLiveDocs({
    autosaveOf: (projectId) => findAutosave(database.db, projectId),
    journal: createUnsavedJournal(dataDir),
  });
  if (options.modelBaseUrl) {
    config.models = {
      ...config.models,
      defaultModel: options.modelAsOllama ? "ollama:scripted" : "openai-compatible:scripted",
      connections: {
        ...config.models.connections,
        "openai-compatible": { baseURL: options.modelBaseUrl, apiKey: "test", explicit: true },
        ...(options.modelAsOllama
          ? { ollama: { apiKey: undefined, baseURL: options.modelBaseUrl, explicit: true } }
          : {}),
      },
    };
  }
  // As in production: models stream on the model thread.
  const modelThread = config.models.thread ? createModelThread() : undefined;
  const models = createModelRegistry(config.models, undefined, modelThread);
  const checkpoints = createCheckpointStores(dataDir, files, sandbox);
  const bus = createInProcessBus();
  const board = createSessionBoard({ db: database.db, checkpoints, changes: createBoardChanges() });
  // As in production, webhook posts pass web_fetch's address guard; only tests allow loopback hosts.
  const chatPost = { allowHosts: options.chatAllowHosts ?? [] };
  const inboxChanges = createInboxChanges();
  const gitCipher = credentialCipher("x".repeat(32));
  const projectSecrets = (projectId: string, personId: string | null = null) =>
    secretEnvironment(database.db, gitCipher, { projectId, personId });
  const environment = createProjectEnvironment({
    db: database.db,
    files,
    sandbox,
    toolchains,
    secrets: (projectId) => projectSecrets(projectId),
  });
  const channels = createProjectChannels({
    db: database.db,
    cipher: gitCipher,
    chat: chatPost,
    projectNetwork: (projectId) => network.policies.get(projectId),
  });
  const extensions = options.extensions
    ? createExtensions({
        config: {
          smtp: options.extensions.smtp,
          embedding: options.extensions.embedding,
          models: config.models,
          mcpAllowHosts: options.extensions.mcpAllowHosts ?? [],
        },
        db: database.db,
        databaseUrl: database.url,
        sandbox,
        projectNetwork: (projectId) => network.policies.get(projectId),
        openWorkspace: (projectId) => files.open(projectId),
        secrets: (projectId) => projectSecrets(projectId),
        schedulerPollingSeconds: options.extensions.schedulerPollingSeconds,
        deferToolsOver: options.extensions.deferToolsOver,
        forgeApi: createForgeApi({
          db: database.db,
          cipher: gitCipher,
          forges: options.extensions.forges ?? {},
          fetchPolicy: { allowHosts: [], projectNetwork: (projectId) => network.policies.get(projectId) },
        }),
        channels: channels.tool,
      })
    : undefined;
  const notifications = createNotifications({
    db: database.db,
    changes: inboxChanges,
    cipher: gitCipher,
    mail: extensions?.agent.mail,
    publicUrl: "http://tandem.test",
    chat: chatPost,
    digestWindowMs: options.digestWindowMs,
    sweepMs: options.digestSweepMs,
  });
  notifications.start();
  const presence = createPresence();
  const notices = createSessionNotices({
    db: database.db,
    notifier: notifications,
    watching: (sessionId) => presence.snapshot(sessionId).map((w) => w.userId),
  });
  const previews = createPreviews({ domain: undefined, publicUrl: undefined }, "test preview secret");
  const browsers = options.browser
    ? createAgentBrowsers({
        config: { ...config, browserChromium: undefined },
        previews,
        policy: (projectId) => network.policies.get(projectId),
        log: () => {},
      })
    : undefined;
  const agent = createAgentRuntime({
    loops: [thisThread, () => modelThread?.eventLoopUtilization() ?? null],
    store: createAgentStore(database.db),
    extensions: extensions?.agent,
    // Workflows run shell steps in the session's shell.
    ...(extensions || options.shell
      ? {
          shell: ({ workspace, projectId, sessionId, secrets }) =>
            createShellSession({
              workspace,
              projectId,
              sessionId,
              sandbox,
              secrets: secrets.env,
              redactor: secrets.redactor,
            }),
        }
      : {}),
    secrets: ({ projectId, personId }) => projectSecrets(projectId, personId),
    bus: tapCommittedEvents(bus, (sessionId, event) => {
      board.observe(sessionId, event);
      notices.observe(sessionId, event);
    }),
    models,
    openWorkspace: (projectId, treeId) => files.openTree({ projectId, treeId: treeId ?? null }),
    checkpoints,
    baseTools: options.tools,
    sandbox,
    environment: (projectId) => environment.facts(projectId),
    // As in production: the server's own fetches obey the project's policy; `fetchAllowHosts`
    // lets web_fetch reach test servers on loopback, as only tests may.
    fetchPolicy: {
      allowHosts: options.fetchAllowHosts ?? [],
      projectNetwork: (projectId) => network.policies.get(projectId),
    },
    maxRetries: 2,
    ...(options.language ? { language } : {}),
    ...(browsers ? { browsers } : {}),
    // As in production: every turn holds its job's lease while it runs.
    // The agent's writes reach the files people have open live at once, with its cursor.
    liveEdits: { wrote: (edit) => liveDocs.agentWrote(edit) },
    turnJobs: createTurnJobs({ db: database.db, mode: "single" }),
    spending: createSpending({ db: database.db, notices: options.budgetNotices ?? inboxBudgetNotices(notifications) }),
  });
  const git = createProjectGit({
    db: database.db,
    files,
    sandbox,
    cipher: gitCipher,
    checkpoints,
    publicUrl: "http://tandem.test",
    allowHost: (projectId, host) => network.allowHost(projectId, host),
    allowHttp: () => config.gitAllowHttp,
  });
  const linkRevocations = createLinkRevocations();
  const services: Services = {
    previews,
    previewGate: createPreviewGate(database.db, linkRevocations, accessChanges),
    git,
    gitCipher,
    webhooks: createProjectWebhooks(database.db, gitCipher),
    trees: createSessionTrees({ db: database.db, files, sandbox, checkpoints, agent, git, language }),
    presence,
    linkRevocations,
    accessChanges,
    limits: createRateLimits(database.url),
    config,
    db: database.db,
    auth,
    logins: createLoginCache(auth, accessChanges, createApiTokenReader(database.db)),
    files,
    terminals,
    language,
    liveDocs,
    agent,
    models,
    checkpoints,
    board,
    notifications,
    inboxChanges,
    channels,
    sandbox,
    network,
    environment,
    ...(extensions ? { extensions } : {}),
  };
  await extensions?.attach(agent);

  let userCount = 0;
  return {
    services,
    dataDir,
    /** For a test's own connection (locks, pg_stat_activity). */
    databaseUrl: database.url,
    async createUser(role: "admin" | "user" = "user") {
      userCount += 1;
      const user = await database.db.user.create({
        data: {
          id: `user-${userCount}-${Date.now()}`,
          name: `User ${userCount}`,
          email: `u${userCount}-${Date.now()}@example.com`,
          role,
        },
        select: { id: true, email: true, name: true, role: true },
      });
      return { ...user, role } as NonNullable<Context["user"]>;
    },
    context(user: Context["user"]): Context {
      return { user, services };
    },
    bus,
    /** Waits until what sessions' events tell people is in their inboxes. */
    noticesSettled: () => notices.settled(),
    async dispose() {
      await extensions?.dispose();
      await agent.dispose();
      await notices.settled();
      await notifications.stop();
      await browsers?.close();
      await modelThread?.close();
      terminals.disposeAll();
      await liveDocs.dispose();
      await language.dispose();
      await services.limits.close();
      await database.drop();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Signs a new person up through the server's own auth (a unique email each call): their login cookie and id. */
export async function signUpPerson(
  services: { auth: { api: { signUpEmail(input: object): Promise<Response> } } },
  name: string,
): Promise<{ cookie: string; id: string }> {
  const email = `${name.toLowerCase()}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const response = await services.auth.api.signUpEmail({
    body: { name, email, password: "correct-horse-battery" },
    asResponse: true,
  });
  if (!response.ok) throw new Error(`sign-up of ${name} failed: ${response.status} ${await response.text()}`);
  const { user } = (await response.json()) as { user: { id: string } };
  const cookie = response.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  return { cookie, id: user.id };
}
