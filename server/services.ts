import { composeServices } from "@/server/compose-services";
import type { Services } from "@/server/api/context";
import { loadOrCreateSecret } from "@/server/auth/secret";
import { createDb } from "@/server/db/client";
import { startEmbeddedPostgres } from "@/server/db/embedded";
import { migrate } from "@/server/db/migrate";
import { isLoopbackHost, type Config } from "@/server/env/config";
import {
  bwrapAvailable,
  defaultBwrapPath,
  defaultSandboxHost,
  type SandboxHost,
  type SandboxMode,
} from "@/server/sandbox/launcher";
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
import { createWorkspaceLeases } from "@/server/cluster/workspace-leases";
import { createRemoteWorkspaceHost } from "@/server/cluster/remote-workspace-host";
import { createHeldWorkspaceWatch } from "@/server/cluster/held-workspace-watch";
import { createClusterFileFollower } from "@/server/cluster/cluster-file-changes";
import { createAuditLog } from "@/server/services/audit-log";
import { resealGitCredentials } from "@/server/services/git-credentials";
import { resealSecrets } from "@/server/services/secrets";
import { chooseRipgrepConfinement } from "@/server/workspace/ripgrep";

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

// Starts what the services stand on (the sandbox host, the embedded database when DATABASE_URL is
// unset, the secret), composes them (compose-services.ts), then recovers what a restart left behind.
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
  if (process.platform === "linux") {
    log(
      await chooseRipgrepConfinement(async () =>
        (await bwrapAvailable(sandboxHost.bwrapPath)) ? (sandboxHost.bwrapPath ?? defaultBwrapPath()) : null,
      ),
    );
  }
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
  const diskBudget = sandboxHost.limits
    ? createDiskBudget({
        budgetMiB: sandboxHost.limits.diskMiB,
        fileSizeMiB: sandboxHost.limits.fileSizeMiB,
        measure: diskUsageBytes,
        log: (line) => log(`sandbox: ${line}`),
      })
    : undefined;
  const composed = await composeServices({
    config,
    db,
    databaseUrl,
    secret,
    sandboxHost,
    diskBudget,
    extraCa: trust.extra,
    log,
  });
  const { agent, files, terminals, liveDocs, language } = composed.services;
  const { buses, gitCipher, extensions } = composed;
  const stopAuditPurge = createAuditLog(db).startPurging();
  const interrupted = await agent.recover();
  if (interrupted.length) log(`marked ${interrupted.length} agent session(s) interrupted after a restart`);
  await extensions?.attach(agent);
  const answering = await agent.answerLeftMessages();
  if (answering.length) log(`answering ${answering.length} message(s) sent while the server was stopping`);
  const resealed = await resealGitCredentials(db, gitCipher);
  if (resealed) log(`sealed ${resealed} stored git credential(s) again under the current secret`);
  const resealedSecrets = await resealSecrets(db, gitCipher);
  if (resealedSecrets) log(`sealed ${resealedSecrets} stored secret(s) again under the current secret`);
  await composed.services.forgeRequests
    .resume()
    .catch((error: unknown) => log(`could not resume the forge requests: ${(error as Error).message}`));
  const runner = options.runner ?? false;
  // A project this instance no longer holds (another took it, or it was deleted): its terminals and MCP connections stop here.
  const dropLiveResources = (projectId: string) => {
    terminals.closeProject(projectId);
    liveDocs.closeProject(projectId);
    void extensions?.projectTools
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
  const services: Services = { ...composed.services, workspaces };
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
      await composed.dispose();
      await db.$disconnect();
      await embedded?.stop();
    },
  };
}
