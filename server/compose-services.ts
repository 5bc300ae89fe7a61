import { createForgeApi, forgeConnections } from "@/server/services/forge-api";
import { createPreviews } from "@/server/preview/previews";
import { createPreviewGate } from "@/server/services/preview-gate";
import type { Services } from "@/server/api/context";
import { createLoginCache } from "@/server/auth/login-cache";
import { followCredentialExpiries } from "@/server/auth/credential-expiries";
import { loginSessionLasts } from "@/server/db/repositories/users";
import { apiTokenLasts } from "@/server/db/repositories/api-tokens";
import { createApiTokenReader } from "@/server/auth/api-tokens";
import { createAuth } from "@/server/auth/auth";
import type { Db } from "@/server/db/client";
import type { Config } from "@/server/env/config";
import { createCheckpointStores } from "@/server/services/checkpoints";
import { createProjectFiles } from "@/server/services/project-files";
import { createTerminalService } from "@/server/terminal";
import type { SandboxHost } from "@/server/sandbox/launcher";
import { createSandbox } from "@/server/sandbox/sandbox";
import type { DiskBudget } from "@/server/sandbox/disk-budget";
import { createProjectEnvironment, createToolchains } from "@/server/services/project-environment";
import { createProjectNetwork } from "@/server/services/network";
import { createAgentRuntime } from "@/server/agent/runtime";
import { createAgentStore } from "@/server/services/agent-store";
import { createSessionBoard } from "@/server/services/session-board";
import { tapCommittedEvents } from "@/server/bus/session-bus";
import { thisThread } from "@/server/agent/loop-load";
import { createTurnJobs } from "@/server/cluster/turn-jobs";
import { createBuses } from "@/server/cluster/buses";
import { createExtensions } from "@/server/services/extensions";
import { createNotifications } from "@/server/services/notifications";
import { createProjectChannels } from "@/server/services/project-channels";
import { createSessionNotices } from "@/server/services/session-notices";
import { createAgentBrowsers } from "@/server/services/agent-browsers";
import { createSpending, inboxBudgetNotices, type BudgetNotices } from "@/server/services/spending";
import { createShellSession } from "@/server/workspace/shell-session";
import { createModelRegistry } from "@/server/agent/providers";
import { createModelThread } from "@/server/agent/model-thread/model-thread";
import { createRateLimits } from "@/server/api/rate-limit";
import { createLanguageServers } from "@/server/language/language-servers";
import { languagePlugins } from "@/server/services/language-plugins";
import { createLiveDocs } from "@/server/live-docs/live-docs";
import { createUnsavedJournal } from "@/server/live-docs/unsaved-journal";
import { findAutosave } from "@/server/db/repositories/live-settings";
import { credentialCipher } from "@/server/git/credential-cipher";
import { createProjectGit } from "@/server/services/project-git";
import { createProjectWebhooks } from "@/server/services/project-webhooks";
import { createForgeRequests, type ForgeRequests } from "@/server/services/forge-requests";
import { createSessionTrees } from "@/server/services/session-trees";
import { secretEnvironment } from "@/server/services/secrets";
import { createTurnAuthority } from "@/server/services/turn-authority";
import type { Tool } from "@/server/tools/define-tool";

/** What the services stand on: made by the server's start-up (services.ts) or by a test (server/test/services.ts). */
export type ServiceFoundations = {
  config: Config;
  db: Db;
  databaseUrl: string;
  /** The server secret: login sessions, preview links, and the key the stored credentials are sealed under. */
  secret: string;
  sandboxHost: SandboxHost;
  /** Measures projects' workspaces while they run commands and before the server writes into them. */
  diskBudget?: DiskBudget;
  /** Extra CA certificates the model thread trusts (TANDEM_EXTRA_CA_CERTS). */
  extraCa?: readonly string[];
  log: (line: string) => void;
};

/**
 * Where a test composes differently; production takes every default. Each knob says what it
 * replaces, so that what tests run is the production wiring otherwise.
 */
export type CompositionChoices = {
  /** MCP, discovery, knowledge, the scheduler and mail (on by default), and their test timings. */
  extensions?: false | { schedulerPollingSeconds?: number; deferToolsOver?: number };
  /** The agent's shell (on by default). */
  shell?: boolean;
  /** The language servers' tools for the agent (on by default). */
  languageTools?: boolean;
  /** The agent's browser (on by default, where a Chromium is found). */
  browser?: boolean;
  /** Replaces the registry's core tools for the agent. */
  baseTools?: readonly Tool[];
  maxRetries?: number;
  /** Hosts (host:port) web_fetch and chat webhooks may reach on loopback: none in production. */
  fetchAllowHosts?: string[];
  chatAllowHosts?: string[];
  /** A toolchain cache kept between tests (under the data dir by default). */
  toolchainCache?: string;
  /** The address in notifications' links and commits' co-author trailers (config.publicUrl by default). */
  linkBase?: string;
  digestWindowMs?: number;
  digestSweepMs?: number;
  /** Where budgets' 80% notices go (people's inboxes by default). */
  budgetNotices?: BudgetNotices;
};

export type ComposedServices = Awaited<ReturnType<typeof composeServices>>;

// The one wiring of the services every request, socket and job uses, production's and the tests'.
export async function composeServices(foundations: ServiceFoundations, choices: CompositionChoices = {}) {
  const { config, db, databaseUrl, secret, sandboxHost, diskBudget, log } = foundations;
  // Git credentials and project secrets are sealed under keys derived from the server secret.
  const gitCipher = credentialCipher(secret, config.previousSecrets);
  const projectSecrets = (projectId: string, personId: string | null = null) =>
    secretEnvironment(db, gitCipher, { projectId, personId });
  const buses = await createBuses({ kind: config.bus, databaseUrl, db, log });
  // Open connections name their login or API token: its expiry ends them like a sign-out.
  const accessChanges = followCredentialExpiries(buses.accessChanges, {
    login: (id) => loginSessionLasts(db, id),
    token: (id) => apiTokenLasts(db, id),
  });
  const auth = createAuth({
    db,
    secret,
    publicUrl: config.publicUrl,
    secureCookies: config.publicUrl?.startsWith("https:") ?? false,
    onAccessChanged: (userId) => accessChanges.publish({ kind: "user", userId }),
    sso: config.sso,
    passwordSignIn: config.passwordSignIn,
  });
  const files = createProjectFiles(config.dataDir, config.importRoots, diskBudget);
  const network = createProjectNetwork(db, { internalHosts: config.internalHosts });
  const toolchains = createToolchains({
    db,
    files,
    dataDir: config.dataDir,
    registry: config.toolchainRegistry,
    cacheDir: choices.toolchainCache,
    log: (line) => log(`environment: ${line}`),
  });
  const sandbox = createSandbox({
    host: sandboxHost,
    policies: network.policies,
    toolchains,
    testHosts: config.egressTestHosts,
    // A connection that cannot be recorded is not a failure: a project whose clone failed is
    // deleted before its last connection's row is written.
    log: (connection) =>
      void network
        .log(connection)
        .catch((error: unknown) => log(`could not record a network connection: ${(error as Error).message}`)),
    diskBudget,
  });
  const terminals = createTerminalService({ sandbox });
  const environment = createProjectEnvironment({
    db,
    files,
    sandbox,
    toolchains,
    secrets: (projectId) => projectSecrets(projectId),
    log: (line) => log(`environment: ${line}`),
  });
  // Models stream on the model thread.
  const modelThread = config.models.thread ? createModelThread({ extraCa: foundations.extraCa }) : undefined;
  const models = createModelRegistry(config.models, undefined, modelThread);
  const language = createLanguageServers({
    sandbox,
    log: (line) => log(`language: ${line}`),
    plugins: languagePlugins(db, config.languageServers),
  });
  const liveDocs = createLiveDocs({
    autosaveOf: (projectId) => findAutosave(db, projectId),
    journal: createUnsavedJournal(config.dataDir),
  });
  const checkpoints = createCheckpointStores(config.dataDir, files, sandbox);
  const board = createSessionBoard({ db, checkpoints, changes: buses.boardChanges });
  // Webhook posts (people's chat notifications, projects' channels) pass web_fetch's address guard.
  const chatPost = { allowHosts: choices.chatAllowHosts ?? [] };
  const channels = createProjectChannels({
    db,
    cipher: gitCipher,
    chat: chatPost,
    projectNetwork: (projectId) => network.policies.get(projectId),
  });
  const extensions =
    choices.extensions === false
      ? undefined
      : createExtensions({
          channels: channels.tool,
          config,
          db,
          databaseUrl,
          sandbox,
          projectNetwork: (projectId) => network.policies.get(projectId),
          openWorkspace: (projectId) => files.open(projectId),
          secrets: (projectId) => projectSecrets(projectId),
          schedulerPollingSeconds: choices.extensions?.schedulerPollingSeconds,
          deferToolsOver: choices.extensions?.deferToolsOver,
          forgeApi: createForgeApi({
            db,
            cipher: gitCipher,
            forges: config.gitForges,
            fetchPolicy: { allowHosts: [], projectNetwork: (projectId) => network.policies.get(projectId) },
          }),
        });
  const linkBase = choices.linkBase ?? config.publicUrl;
  const notifications = createNotifications({
    db,
    changes: buses.inboxChanges,
    cipher: gitCipher,
    mail: extensions?.agent.mail,
    publicUrl: linkBase,
    chat: chatPost,
    digestWindowMs: choices.digestWindowMs,
    sweepMs: choices.digestSweepMs,
    log,
  });
  notifications.start();
  const notices = createSessionNotices({
    db,
    notifier: notifications,
    watching: (sessionId) => buses.presence.snapshot(sessionId).map((w) => w.userId),
    log,
  });
  const previews = createPreviews({ domain: config.preview.domain, publicUrl: config.publicUrl }, secret);
  const browsers =
    (choices.browser ?? true)
      ? createAgentBrowsers({
          config,
          previews,
          policy: (projectId) => network.policies.get(projectId),
          log,
        })
      : undefined;
  // The agent's metrics go to the admin's OpenTelemetry collector when one is configured.
  // Loaded only then: OpenTelemetry's SDK is about 6 MB of an idle server's heap that exports nothing.
  const metrics = config.telemetry
    ? (await import("@/server/telemetry/otlp-metrics")).otlpMetrics(config.telemetry)
    : undefined;
  // Made once the trees it pushes with exist; the turns whose ends it watches start only after that.
  let forgeRequests: ForgeRequests | undefined;
  const agent = createAgentRuntime({
    ...(metrics ? { metrics } : {}),
    loops: [thisThread, () => modelThread?.eventLoopUtilization() ?? null],
    store: createAgentStore(db),
    extensions: extensions?.agent,
    bus: tapCommittedEvents(buses.sessionBus, (sessionId, event) => {
      board.observe(sessionId, event);
      notices.observe(sessionId, event);
      forgeRequests?.observe(sessionId, event);
    }),
    models,
    openWorkspace: (projectId, treeId) => files.openTree({ projectId, treeId: treeId ?? null }),
    checkpoints,
    // Workflows run shell steps in the session's shell too.
    ...((choices.shell ?? true)
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
    baseTools: choices.baseTools,
    sandbox,
    environment: (projectId) => environment.facts(projectId),
    // The server's own fetches for a project (web_fetch, @ mentions, web_search) obey its policy in force.
    fetchPolicy: {
      allowHosts: choices.fetchAllowHosts ?? [],
      projectNetwork: (projectId) => network.policies.get(projectId),
    },
    webSearch: config.webSearch,
    ...(choices.maxRetries !== undefined ? { maxRetries: choices.maxRetries } : {}),
    ...((choices.languageTools ?? true) ? { language } : {}),
    ...(browsers ? { browsers } : {}),
    // The agent's writes reach the files people have open live at once, with its cursor.
    liveEdits: { wrote: (edit) => liveDocs.agentWrote(edit) },
    // Every turn holds its job's lease while it runs.
    turnJobs: createTurnJobs({ db, mode: config.cluster ? "cluster" : "single", log }),
    spending: createSpending({ db, notices: choices.budgetNotices ?? inboxBudgetNotices(notifications) }),
    // A turn stops when its API token ends, or its person is disabled or leaves the team.
    authority: createTurnAuthority(db, accessChanges),
  });
  const git = createProjectGit({
    db,
    files,
    sandbox,
    cipher: gitCipher,
    checkpoints,
    publicUrl: linkBase,
    allowHost: (projectId, host) => network.allowHost(projectId, host),
    allowHttp: () => config.gitAllowHttp,
    forgeConnections: (remote) => forgeConnections(config.gitForges, remote),
  });
  const trees = createSessionTrees({ db, files, sandbox, checkpoints, agent, git, language });
  const webhooks = createProjectWebhooks(db, gitCipher);
  forgeRequests = createForgeRequests({
    db,
    cipher: gitCipher,
    webhooks,
    trees,
    git,
    board,
    idle: (sessionId) => agent.idle(sessionId),
    forges: () => config.gitForges,
    forgeConnections: (remote) => forgeConnections(config.gitForges, remote),
    publicUrl: linkBase,
    log,
    tell: (sessionId, message) =>
      agent.log.append(sessionId, "error", { code: "internal", message }).then(
        () => undefined,
        (error: unknown) => log(`forge request ${sessionId}: ${message} (not in its log: ${(error as Error).message})`),
      ),
  });
  const limits = createRateLimits(databaseUrl);
  const services: Services = {
    presence: buses.presence,
    linkRevocations: buses.linkRevocations,
    accessChanges,
    limits,
    config,
    db,
    auth,
    logins: createLoginCache(auth, accessChanges, createApiTokenReader(db)),
    files,
    terminals,
    agent,
    models,
    checkpoints,
    board,
    ...(extensions ? { extensions } : {}),
    notifications,
    inboxChanges: buses.inboxChanges,
    channels,
    sandbox,
    network,
    environment,
    previews,
    previewGate: createPreviewGate(db, buses.linkRevocations, accessChanges),
    language,
    liveDocs,
    git,
    gitCipher,
    trees,
    webhooks,
    forgeRequests,
  };
  return {
    services,
    buses,
    extensions,
    gitCipher,
    /** Waits until what sessions' events tell people is in their inboxes. */
    noticesSettled: () => notices.settled(),
    /** Stops what the services run, in the order they depend on each other; the database stays open. */
    async dispose() {
      await extensions?.dispose();
      await agent.dispose();
      await forgeRequests.settled();
      await metrics
        ?.shutdown()
        .catch((error: unknown) => log(`could not send the last metrics: ${(error as Error).message}`));
      await notices.settled();
      await board.settled();
      await notifications.stop();
      await browsers?.close();
      await modelThread?.close();
      terminals.disposeAll();
      await liveDocs.dispose();
      await language.dispose();
      await sandbox.networks?.close();
      await buses.close();
      await limits.close();
    },
  };
}
