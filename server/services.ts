import { createForgeApi } from "@/server/services/forge-api";
import { otlpMetrics } from "@/server/telemetry/otlp-metrics";
import { createPreviews } from "@/server/preview/previews";
import { createPreviewGate } from "@/server/services/preview-gate";
import type { Services } from "@/server/api/context";
import { createLoginCache } from "@/server/auth/login-cache";
import { createApiTokenReader } from "@/server/auth/api-tokens";
import { createAuth } from "@/server/auth/auth";
import { loadOrCreateSecret } from "@/server/auth/secret";
import { createDb } from "@/server/db/client";
import { startEmbeddedPostgres } from "@/server/db/embedded";
import { migrate } from "@/server/db/migrate";
import { isLoopbackHost, type Config } from "@/server/env";
import { createCheckpointStores } from "@/server/services/checkpoints";
import { createProjectFiles } from "@/server/services/project-files";
import { createTerminalService } from "@/server/terminal";
import { bwrapAvailable, defaultSandboxHost, type SandboxHost, type SandboxMode } from "@/server/sandbox/launcher";
import { createSandbox } from "@/server/sandbox/sandbox";
import { createProjectEnvironment, createToolchains } from "@/server/services/project-environment";
import { createDiskBudget } from "@/server/sandbox/disk-budget";
import { diskUsageBytes } from "@/server/workspace/disk-usage";
import { setUpCgroups } from "@/server/sandbox/cgroups";
import { describeSandbox } from "@/server/sandbox/describe-sandbox";
import {
  loadTrustStore,
  trustExtraCertificates,
  TrustStoreError,
  writeSandboxBundle,
  type TrustStore,
} from "@/server/sandbox/trust-store";
import { createProjectNetwork } from "@/server/services/network";
import { createAgentRuntime } from "@/server/agent/runtime";
import { createAgentStore } from "@/server/services/agent-store";
import { createSessionBoard } from "@/server/services/session-board";
import { tapCommittedEvents } from "@/server/bus/session-bus";
import { thisThread } from "@/server/agent/loop-load";
import { createTurnJobs } from "@/server/cluster/turn-jobs";
import { createWorkspaceLeases } from "@/server/cluster/workspace-leases";
import { createRemoteWorkspaceHost } from "@/server/cluster/remote-workspace-host";
import { createHeldWorkspaceWatch } from "@/server/cluster/held-workspace-watch";
import { createClusterFileFollower } from "@/server/cluster/cluster-file-changes";
import { createExtensions } from "@/server/services/extensions";
import { createNotifications } from "@/server/services/notifications";
import { createProjectChannels } from "@/server/services/project-channels";
import { createSessionNotices } from "@/server/services/session-notices";
import { createAgentBrowsers } from "@/server/services/agent-browsers";
import { createSpending, inboxBudgetNotices } from "@/server/services/spending";
import { createAuditLog } from "@/server/services/audit-log";
import { createShellSession } from "@/server/workspace/shell-session";
import { createModelRegistry } from "@/server/agent/providers";
import { createModelThread } from "@/server/agent/model-thread/model-thread";
import { createBuses } from "@/server/cluster/buses";
import { createRateLimits } from "@/server/api/rate-limit";
import { createLanguageServers } from "@/server/language/language-servers";
import { languagePlugins } from "@/server/services/language-plugins";
import { createLiveDocs } from "@/server/live-docs/live-docs";
import { createUnsavedJournal } from "@/server/live-docs/unsaved-journal";
import { findAutosave } from "@/server/db/repositories/live-settings";
import { credentialCipher } from "@/server/git/credential-cipher";
import { createProjectGit } from "@/server/services/project-git";
import { createProjectWebhooks } from "@/server/services/project-webhooks";
import { createSessionTrees } from "@/server/services/session-trees";
import { resealGitCredentials } from "@/server/services/git-credentials";
import { resealSecrets, secretEnvironment } from "@/server/services/secrets";

export class StartupError extends Error {}

export type SandboxChoice = { mode: SandboxMode; unavailable?: string };

/**
 * Fails closed: without a working bubblewrap nothing sandboxed runs (every launch says why),
 * unless an admin chose TANDEM_SANDBOX=none, which runs commands unsandboxed and is refused
 * unless the server listens on loopback only.
 */
export async function resolveSandboxMode(config: Config, bwrapPath?: string): Promise<SandboxChoice> {
  if (config.sandbox === "none") {
    if (!isLoopbackHost(config.host)) {
      throw new StartupError(
        `Refusing to run commands without a sandbox (TANDEM_SANDBOX=none) while listening on ${config.host}. ` +
          "Install bubblewrap (Debian/Ubuntu: `apt-get install bubblewrap`), or listen on loopback only (HOST=127.0.0.1).",
      );
    }
    return { mode: "none" };
  }
  if (await bwrapAvailable(bwrapPath)) return { mode: "bwrap" };
  if (config.sandbox === "bwrap") {
    throw new StartupError(
      "TANDEM_SANDBOX=bwrap but bubblewrap does not work here. Install it (Debian/Ubuntu: `apt-get install bubblewrap`).",
    );
  }
  return {
    mode: "bwrap",
    unavailable:
      "The sandbox (bubblewrap) does not work on this server, so terminals, the agent's shell, MCP stdio servers and discovery commands do not run. " +
      "An admin can install bubblewrap (Debian/Ubuntu: `apt-get install bubblewrap`), or set TANDEM_SANDBOX=none on a server that listens on loopback only.",
  };
}

// Builds everything the API needs, starting the embedded database when DATABASE_URL is unset.
/** `runner`: a workspace runner (workspace-runner-main.ts), which holds projects for the web instances. */
export async function createServices(
  config: Config,
  log: (line: string) => void = console.log,
  options: { runner?: boolean } = {},
) {
  const choice = await resolveSandboxMode(config);
  let trust: TrustStore;
  try {
    trust = loadTrustStore(config.extraCaCerts);
  } catch (error) {
    if (error instanceof TrustStoreError) throw new StartupError(error.message);
    throw error;
  }
  trustExtraCertificates(trust.extra);
  if (trust.extra.length)
    log(
      `trusting ${trust.extra.length} extra certificate(s) from TANDEM_EXTRA_CA_CERTS, in sandboxes and for the server's own connections`,
    );
  const sandboxHost: SandboxHost = {
    ...defaultSandboxHost(choice.mode, { dataDir: config.dataDir, limits: config.sandboxLimits }),
    unavailable: choice.unavailable,
    caBundle: choice.mode === "bwrap" && !choice.unavailable ? writeSandboxBundle(trust) : undefined,
  };
  // A cgroup per sandbox where the host delegates a cgroup v2 tree; the rlimits apply either way.
  if (sandboxHost.mode === "bwrap" && !sandboxHost.unavailable && sandboxHost.limits)
    sandboxHost.cgroups = setUpCgroups();
  // Files the server writes into workspaces stay writable for the project's group (server/sandbox/identity.ts).
  if (sandboxHost.perProjectUid) process.umask(0o002);
  log(describeSandbox(sandboxHost));
  const embedded = config.databaseUrl ? undefined : await startEmbeddedPostgres(config.dataDir);
  const databaseUrl = config.databaseUrl ?? embedded!.url;
  try {
    const applied = await migrate(databaseUrl);
    if (applied.length) log(`applied migrations: ${applied.join(", ")}`);
  } catch (error) {
    await embedded?.stop();
    throw error;
  }
  const db = createDb(databaseUrl);
  const secret = await loadOrCreateSecret(config.dataDir, config.authSecret);
  // Git credentials and project secrets are sealed under keys derived from the server secret.
  const gitCipher = credentialCipher(secret, config.previousSecrets);
  const projectSecrets = (projectId: string, personId: string | null = null) =>
    secretEnvironment(db, gitCipher, { projectId, personId });
  const buses = await createBuses({ kind: config.bus, databaseUrl, db, log });
  const { accessChanges } = buses;
  const auth = createAuth({
    db,
    secret,
    publicUrl: config.publicUrl,
    secureCookies: config.publicUrl?.startsWith("https:") ?? false,
    onAccessChanged: (userId) => accessChanges.publish({ kind: "user", userId }),
    sso: config.sso,
    passwordSignIn: config.passwordSignIn,
  });
  // Measures projects' workspaces while they run commands and before the server writes into them.
  const diskBudget = sandboxHost.limits
    ? createDiskBudget({
        budgetMiB: sandboxHost.limits.diskMiB,
        fileSizeMiB: sandboxHost.limits.fileSizeMiB,
        measure: diskUsageBytes,
        log: (line) => log(`sandbox: ${line}`),
      })
    : undefined;
  const files = createProjectFiles(config.dataDir, config.importRoots, diskBudget);
  const network = createProjectNetwork(db, { internalHosts: config.internalHosts });
  const toolchains = createToolchains({
    db,
    files,
    dataDir: config.dataDir,
    registry: config.toolchainRegistry,
    log: (line) => log(`environment: ${line}`),
  });
  const sandbox = createSandbox({
    host: sandboxHost,
    policies: network.policies,
    toolchains,
    testHosts: config.egressTestHosts,
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
  const modelThread = config.models.thread ? createModelThread({ extraCa: trust.extra }) : undefined;
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
  const chatPost = { allowHosts: [] };
  const channels = createProjectChannels({
    db,
    cipher: gitCipher,
    chat: chatPost,
    projectNetwork: (projectId) => network.policies.get(projectId),
  });
  const extensions = createExtensions({
    channels: channels.tool,
    config,
    db,
    databaseUrl,
    sandbox,
    projectNetwork: (projectId) => network.policies.get(projectId),
    openWorkspace: (projectId) => files.open(projectId),
    secrets: (projectId) => projectSecrets(projectId),
    forgeApi: createForgeApi({
      db,
      cipher: gitCipher,
      forges: config.gitForges,
      fetchPolicy: { allowHosts: [], projectNetwork: (projectId) => network.policies.get(projectId) },
    }),
  });
  const notifications = createNotifications({
    db,
    changes: buses.inboxChanges,
    cipher: gitCipher,
    mail: extensions.agent.mail,
    publicUrl: config.publicUrl,
    chat: chatPost,
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
  const browsers = createAgentBrowsers({
    config,
    previews,
    policy: (projectId) => network.policies.get(projectId),
    log,
  });
  // The agent's metrics go to the admin's OpenTelemetry collector when one is configured.
  const metrics = config.telemetry ? otlpMetrics(config.telemetry) : undefined;
  const agent = createAgentRuntime({
    ...(metrics ? { metrics } : {}),
    loops: [thisThread, () => modelThread?.eventLoopUtilization() ?? null],
    store: createAgentStore(db),
    extensions: extensions.agent,
    bus: tapCommittedEvents(buses.sessionBus, (sessionId, event) => {
      board.observe(sessionId, event);
      notices.observe(sessionId, event);
    }),
    models,
    openWorkspace: (projectId, treeId) => files.openTree({ projectId, treeId: treeId ?? null }),
    checkpoints,
    shell: ({ workspace, projectId, sessionId, secrets }) =>
      createShellSession({
        workspace,
        projectId,
        sessionId,
        sandbox,
        secrets: secrets.env,
        redactor: secrets.redactor,
      }),
    secrets: ({ projectId, personId }) => projectSecrets(projectId, personId),
    sandbox,
    environment: (projectId) => environment.facts(projectId),
    // The server's own fetches for a project (web_fetch, @ mentions, web_search) obey its policy in force.
    fetchPolicy: { allowHosts: [], projectNetwork: (projectId) => network.policies.get(projectId) },
    webSearch: config.webSearch,
    language,
    ...(browsers ? { browsers } : {}),
    // The agent's writes reach the files people have open live at once, with its cursor.
    liveEdits: { wrote: (edit) => liveDocs.agentWrote(edit) },
    turnJobs: createTurnJobs({ db, mode: config.cluster ? "cluster" : "single", log }),
    // Budgets and the usage ledger; 80% notices go to the server's log until the inbox is wired here.
    spending: createSpending({ db, notices: inboxBudgetNotices(notifications) }),
  });
  const stopAuditPurge = createAuditLog(db).startPurging();
  const interrupted = await agent.recover();
  if (interrupted.length) log(`marked ${interrupted.length} agent session(s) interrupted after a restart`);
  await extensions.attach(agent);
  const answering = await agent.answerLeftMessages();
  if (answering.length) log(`answering ${answering.length} message(s) sent while the server was stopping`);
  const resealed = await resealGitCredentials(db, gitCipher);
  if (resealed) log(`sealed ${resealed} stored git credential(s) again under the current secret`);
  const resealedSecrets = await resealSecrets(db, gitCipher);
  if (resealedSecrets) log(`sealed ${resealedSecrets} stored secret(s) again under the current secret`);
  const git = createProjectGit({
    db,
    files,
    sandbox,
    cipher: gitCipher,
    checkpoints,
    publicUrl: config.publicUrl,
    allowHost: (projectId, host) => network.allowHost(projectId, host),
    allowHttp: () => config.gitAllowHttp,
  });
  const trees = createSessionTrees({ db, files, sandbox, checkpoints, agent, git, language });
  const limits = createRateLimits(databaseUrl);
  const live = { presence: buses.presence, linkRevocations: buses.linkRevocations, accessChanges, limits };
  const runner = options.runner ?? false;
  // A project this instance no longer holds (another took it, or it was deleted): its terminals and MCP connections stop here.
  const dropLiveResources = (projectId: string) => {
    terminals.closeProject(projectId);
    liveDocs.closeProject(projectId);
    void extensions.projectTools
      .close(projectId)
      .catch((error: unknown) =>
        log(`could not close the MCP connections of project ${projectId}: ${(error as Error).message}`),
      );
  };
  // The holder of a project watches its files and publishes what it sees on the file-change bus.
  const { fileChanges } = buses;
  const heldWatch = fileChanges
    ? createHeldWorkspaceWatch({ fileChanges, root: async (projectId) => (await files.open(projectId)).root, log })
    : null;
  const host = config.cluster
    ? config.workspaceRunnersUrl && !runner
      ? createRemoteWorkspaceHost(config.workspaceRunnersUrl, secret)
      : createWorkspaceLeases({
          db,
          lost: (projectId) => {
            dropLiveResources(projectId);
            heldWatch?.drop(projectId);
          },
          held: (projectId) => heldWatch?.hold(projectId),
          log,
        })
    : null;
  const workspaces = host
    ? {
        host,
        forwardingSecret: secret,
        runner,
        followFiles: fileChanges ? createClusterFileFollower({ fileChanges, host, log }) : null,
      }
    : undefined;
  const logins = createLoginCache(auth, accessChanges, createApiTokenReader(db));
  const services: Services = {
    ...live,
    config,
    db,
    auth,
    logins,
    files,
    terminals,
    agent,
    models,
    checkpoints,
    board,
    extensions,
    notifications,
    inboxChanges: buses.inboxChanges,
    channels,
    sandbox,
    network,
    environment,
    previews,
    previewGate: createPreviewGate(db, live.linkRevocations, accessChanges),
    language,
    liveDocs,
    git,
    gitCipher,
    trees,
    webhooks: createProjectWebhooks(db, gitCipher),
    workspaces,
  };
  return {
    services,
    sandboxMode: choice.unavailable ? "unavailable" : choice.mode,
    /** Called first on a shutdown signal, before anything is awaited: see LanguageServers.shuttingDown. */
    shuttingDown() {
      language.shuttingDown();
    },
    async dispose() {
      await workspaces?.host
        .release()
        .catch((error: unknown) => log(`could not give back the workspace leases: ${(error as Error).message}`));
      heldWatch?.close();
      stopAuditPurge();
      await extensions.dispose();
      await agent.dispose();
      await metrics
        ?.shutdown()
        .catch((error: unknown) => log(`could not send the last metrics: ${(error as Error).message}`));
      await notifications.stop();
      await browsers?.close();
      await modelThread?.close();
      terminals.disposeAll();
      await liveDocs.dispose();
      await language.dispose();
      await sandbox.networks?.close();
      await buses.close();
      await limits.close();
      await db.$disconnect();
      await embedded?.stop();
    },
  };
}
